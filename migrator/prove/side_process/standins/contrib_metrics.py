"""``tf.contrib.metrics`` streaming metrics for the legacy side, written from what TF
1.15's ``contrib/metrics/python/ops/metric_ops.py`` did (migrator/prove/side_process/standins/README.md).
The runtime side uses ``tf_slim.metrics``."""

import tensorflow as tf

v1 = tf.compat.v1


def _local(name, shape, dtype, validate_shape=True):
    """A metric variable: local, zero-initialized, not trainable."""
    return v1.get_variable(
        name,
        shape,
        dtype,
        initializer=tf.zeros_initializer(),
        trainable=False,
        collections=[v1.GraphKeys.LOCAL_VARIABLES, v1.GraphKeys.METRIC_VARIABLES],
        validate_shape=validate_shape,
    )


def _squeezed(predictions, labels, weights):
    """Drops a trailing size-1 dimension where ranks differ by one (static shapes)."""
    predictions = tf.convert_to_tensor(predictions)
    labels = tf.convert_to_tensor(labels)
    rank_gap = predictions.shape.ndims - labels.shape.ndims
    if rank_gap == 1 and predictions.shape[-1] == 1:
        predictions = tf.squeeze(predictions, [-1])
    elif rank_gap == -1 and labels.shape[-1] == 1:
        labels = tf.squeeze(labels, [-1])
    predictions.shape.assert_is_compatible_with(labels.shape)
    if weights is not None:
        weights = tf.convert_to_tensor(weights)
    return predictions, labels, weights


def _broadcast(weights, values):
    """``weights`` in the shape of ``values`` (times ones unless already equal)."""
    if weights.shape.is_fully_defined() and weights.shape == values.shape:
        return weights
    return weights * tf.ones_like(values)


def _collect(value, update, metrics_collections, updates_collections):
    if metrics_collections:
        v1.add_to_collections(metrics_collections, value)
    if updates_collections:
        v1.add_to_collections(updates_collections, update)
    return value, update


def streaming_covariance(
    predictions, labels, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """The unbiased co-moment, merged batch by batch (Chan et al.'s pairwise update):
    count n, means of x and y, and C = sum (x - mean x)(y - mean y); the value is
    C / (n - 1), NaN while n <= 1."""
    with v1.variable_scope(name, "covariance", (predictions, labels, weights)):
        x, y, weights = _squeezed(predictions, labels, weights)
        n = _local("count", [], tf.float32)
        mean_x = _local("mean_prediction", [], tf.float32)
        mean_y = _local("mean_label", [], tf.float32)
        comoment = _local("comoment", [], tf.float32)
        if weights is None:
            n_batch = tf.cast(tf.size(y), tf.float32)
            sum_x, sum_y = tf.reduce_sum(x), tf.reduce_sum(y)
        else:
            weights = _broadcast(weights, y)
            n_batch = tf.reduce_sum(weights)
            sum_x, sum_y = tf.reduce_sum(x * weights), tf.reduce_sum(y * weights)
        n_total = n.assign_add(n_batch)
        n_before = n_total - n_batch
        batch_mean_x = tf.math.divide_no_nan(sum_x, n_batch)
        shift_x = tf.math.divide_no_nan((batch_mean_x - mean_x) * n_batch, n_total)
        mean_x_before = mean_x.assign_add(shift_x) - shift_x
        batch_mean_y = tf.math.divide_no_nan(sum_y, n_batch)
        shift_y = tf.math.divide_no_nan((batch_mean_y - mean_y) * n_batch, n_total)
        mean_y_before = mean_y.assign_add(shift_y) - shift_y
        products = (x - batch_mean_x) * (y - batch_mean_y)
        batch_comoment = tf.reduce_sum(products if weights is None else products * weights)
        merged = batch_comoment + (mean_x_before - batch_mean_x) * (
            mean_y_before - batch_mean_y
        ) * (n_before * n_batch / n_total)
        comoment_update = comoment.assign_add(merged)

        def unbiased():
            return tf.where(tf.less_equal(n, 1.0), float("nan"), tf.truediv(comoment, n - 1))

        value = unbiased()
        with tf.control_dependencies([comoment_update]):
            update = unbiased()
    return _collect(value, update, metrics_collections, updates_collections)


def streaming_pearson_correlation(
    predictions, labels, weights=None, metrics_collections=None, updates_collections=None, name=None
):
    """cov(x, y) / (sqrt(var x) * sqrt(var y)), each a streaming_covariance."""
    with v1.variable_scope(name, "pearson_r", (predictions, labels, weights)):
        x, y, weights = _squeezed(predictions, labels, weights)
        if weights is not None:
            weights = _broadcast(weights, y)
        cov = streaming_covariance(x, y, weights=weights, name="covariance")
        var_x = streaming_covariance(x, x, weights=weights, name="variance_predictions")
        var_y = streaming_covariance(y, y, weights=weights, name="variance_labels")
        value, update = (
            tf.truediv(c, tf.multiply(tf.sqrt(a), tf.sqrt(b)))
            for c, a, b in zip(cov, var_x, var_y, strict=True)
        )
    return _collect(value, update, metrics_collections, updates_collections)


def streaming_concat(
    values, axis=0, max_size=None, metrics_collections=None, updates_collections=None, name=None
):
    """Every batch's ``values`` concatenated along ``axis`` (at most ``max_size``
    along it); the other dimensions must be known. TF 1.15 kept the rows in a
    local ``array`` variable (``axis`` moved to the front) grown to the next power
    of 1.5 when full, and their count in a local ``size``."""
    with v1.variable_scope(name, "streaming_concat", (values,)):
        rank = values.shape.ndims
        if rank is None:
            raise ValueError("`values` must have known statically known rank")
        axis = axis + rank if axis < 0 else axis
        if not 0 <= axis < rank:
            raise ValueError(f"axis = {axis!r} not in [0, {rank!r})")
        others = [values.shape[n] for n in range(rank) if n != axis]
        if any(size is None for size in others):
            raise ValueError(
                "all dimensions of `values` other than the dimension to concatenate "
                "along must have statically known size"
            )
        array = _local("array", [max_size or 0, *others], values.dtype, validate_shape=False)
        size = _local("size", [], tf.int32)
        front_back = [0 if n == axis else n + 1 if n < axis else n for n in range(rank)]
        held = array[:size]
        held.set_shape([None, *others])
        value = tf.transpose(held, front_back, name="concat")
        count = tf.shape(values)[axis]
        if max_size is not None:
            count = tf.minimum(count, max_size - size)
        batch = tf.transpose(values, [axis] + [n for n in range(rank) if n != axis])[:count]
        wanted = size + count

        def grow():
            growth = tf.math.log(1.5)
            new_size = tf.cast(
                tf.math.ceil(
                    1.5 ** tf.math.ceil(tf.math.log(tf.cast(wanted, tf.float32)) / growth)
                ),
                tf.int32,
            )
            old = array.value()
            with tf.control_dependencies([old]):
                emptied = v1.assign(
                    array,
                    tf.zeros(tf.stack([new_size, *others]), values.dtype),
                    validate_shape=False,
                )
            with tf.control_dependencies([emptied]):
                copied = array[:size].assign(old[:size])
            with tf.control_dependencies([copied]):
                return tf.no_op()

        capacity = tf.raw_ops.Shape(input=array)[0]
        grown = v1.cond(wanted > capacity, grow, tf.no_op)
        with tf.control_dependencies([grown]):
            appended = array[size:wanted].assign(batch)
        with tf.control_dependencies([appended]):
            update = size.assign(wanted)
    return _collect(value, update, metrics_collections, updates_collections)
