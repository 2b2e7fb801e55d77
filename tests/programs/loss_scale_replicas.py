"""NPULossScaleOptimizer, hccl_ops.allreduce / allgather and npu_bridge's gradient
``allreduce`` on 2 logical CPU replicas
(MirroredStrategy): prints, as JSON, what tests/runtime/test_runtime_loss_scaling.py checks.

Step 1 feeds replica 1 a non-finite input, replica 0 a finite one; step 2 feeds
both finite inputs. Both replicas must skip step 1 together (their copies of
the weight stay equal, the global step and the weight stay put) and apply step 2.
"""

import json

import tensorflow as tf

from estimator_revival.npu import (
    FixedLossScaleManager,
    NPULossScaleOptimizer,
    allreduce,
    hccl_ops,
)


def main() -> None:
    (cpu,) = tf.config.list_physical_devices("CPU")
    tf.config.set_logical_device_configuration(cpu, [tf.config.LogicalDeviceConfiguration()] * 2)
    strategy = tf.distribute.MirroredStrategy(["/cpu:0", "/cpu:1"])
    with strategy.scope():
        weight = tf.compat.v1.Variable(1.0, name="weight")
        global_step = tf.compat.v1.train.get_or_create_global_step()
        optimizer = NPULossScaleOptimizer(
            tf.compat.v1.train.GradientDescentOptimizer(0.5),
            FixedLossScaleManager(2.0**10),
            is_distributed=True,
        )

    @tf.function(autograph=False)
    def step(inputs):
        def replica(x):
            loss = weight * x
            train_op = optimizer.minimize(loss, global_step=global_step, var_list=[weight])
            rank = tf.cast(tf.distribute.get_replica_context().replica_id_in_sync_group, tf.float32)
            with tf.control_dependencies([train_op]):
                reduced = {
                    reduction: hccl_ops.allreduce(rank + 1.0, reduction)
                    for reduction in ("sum", "max", "min", "prod")
                }
                # npu_bridge's gradient all-reduce: the mean over ranks; a sparse
                # gradient's rows gathered from every rank, their values divided
                reduced["gradient_mean"] = allreduce(tf.stack([rank, 10.0 * rank]), weight)
                sparse = allreduce(tf.IndexedSlices(tf.reshape(rank + 1.0, [1, 1]), [0]), weight)
                reduced["sparse_values"] = tf.reshape(sparse.values, [-1])
                reduced["sparse_indices"] = tf.cast(sparse.indices, tf.float32)
                reduced["gradient_sum"] = allreduce(rank + 1.0, weight, average=False)
            return reduced

        return strategy.run(replica, args=(inputs,))

    def per_replica(first, second):
        values = iter([tf.constant(first), tf.constant(second)])
        return strategy.experimental_distribute_values_from_function(lambda _: next(values))

    report = {"steps": []}
    for first, second in [(1.0, float("inf")), (1.0, 3.0)]:
        reduced = step(per_replica(first, second))
        report["steps"].append(
            {
                "weights": [float(w) for w in strategy.experimental_local_results(weight)],
                "global_step": int(global_step.numpy()),
            }
        )
        report["allreduce"] = {
            name: [v.numpy().tolist() for v in strategy.experimental_local_results(value)]
            for name, value in reduced.items()
        }
    print(json.dumps(report))


if __name__ == "__main__":
    main()
