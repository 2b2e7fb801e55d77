"""``tf.contrib.crf`` for the legacy side, from TF 1.15's
``contrib/crf/python/ops/crf.py``: Python over TF ops, the forward algorithm
and Viterbi decoding run by ``rnn.dynamic_rnn``."""

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import constant_op, dtypes, smart_cond, tensor_shape
from tensorflow.python.ops import (
    array_ops,
    array_ops_stack,
    cond,
    gen_array_ops,
    math_ops,
    rnn,
)
from tensorflow.python.ops import (
    variable_scope as vs,
)

RNNCell = tf.compat.v1.nn.rnn_cell.RNNCell


def _single_step(inputs):
    return math_ops.equal(
        tensor_shape.dimension_value(inputs.shape[1]) or array_ops.shape(inputs)[1], 1
    )


def crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params):
    def _single_seq_fn():
        batch_size = array_ops.shape(inputs, out_type=tag_indices.dtype)[0]
        example_inds = array_ops.reshape(
            math_ops.range(batch_size, dtype=tag_indices.dtype), [-1, 1]
        )
        sequence_scores = array_ops.gather_nd(
            array_ops.squeeze(inputs, [1]), array_ops.concat([example_inds, tag_indices], axis=1)
        )
        return array_ops.where(math_ops.less_equal(sequence_lengths, 0),
                               array_ops.zeros_like(sequence_scores), sequence_scores)  # fmt: skip

    def _multi_seq_fn():
        unary_scores = crf_unary_score(tag_indices, sequence_lengths, inputs)
        binary_scores = crf_binary_score(tag_indices, sequence_lengths, transition_params)
        return unary_scores + binary_scores

    return smart_cond.smart_cond(_single_step(inputs), _single_seq_fn, _multi_seq_fn)


def crf_log_norm(inputs, sequence_lengths, transition_params):
    first_input = array_ops.slice(inputs, [0, 0, 0], [-1, 1, -1])
    first_input = array_ops.squeeze(first_input, [1])

    def _single_seq_fn():
        log_norm = math_ops.reduce_logsumexp(first_input, [1])
        return array_ops.where(math_ops.less_equal(sequence_lengths, 0),
                               array_ops.zeros_like(log_norm), log_norm)  # fmt: skip

    def _multi_seq_fn():
        rest_of_input = array_ops.slice(inputs, [0, 1, 0], [-1, -1, -1])
        forward_cell = CrfForwardRnnCell(transition_params)
        sequence_lengths_less_one = math_ops.maximum(
            constant_op.constant(0, dtype=sequence_lengths.dtype), sequence_lengths - 1
        )
        _, alphas = rnn.dynamic_rnn(cell=forward_cell, inputs=rest_of_input,
                                    sequence_length=sequence_lengths_less_one,
                                    initial_state=first_input, dtype=dtypes.float32)  # fmt: skip
        log_norm = math_ops.reduce_logsumexp(alphas, [1])
        return array_ops.where(math_ops.less_equal(sequence_lengths, 0),
                               array_ops.zeros_like(log_norm), log_norm)  # fmt: skip

    max_seq_len = array_ops.shape(inputs)[1]
    return cond.cond(pred=math_ops.equal(max_seq_len, 1),
                                 true_fn=_single_seq_fn, false_fn=_multi_seq_fn)  # fmt: skip


def crf_log_likelihood(inputs, tag_indices, sequence_lengths, transition_params=None):
    num_tags = tensor_shape.dimension_value(inputs.shape[2])
    if transition_params is None:
        transition_params = vs.get_variable("transitions", [num_tags, num_tags])
    sequence_scores = crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params)
    log_norm = crf_log_norm(inputs, sequence_lengths, transition_params)
    return sequence_scores - log_norm, transition_params


def crf_unary_score(tag_indices, sequence_lengths, inputs):
    batch_size = array_ops.shape(inputs)[0]
    max_seq_len = array_ops.shape(inputs)[1]
    num_tags = array_ops.shape(inputs)[2]
    flattened_inputs = array_ops.reshape(inputs, [-1])
    offsets = array_ops.expand_dims(math_ops.range(batch_size) * max_seq_len * num_tags, 1)
    offsets += array_ops.expand_dims(math_ops.range(max_seq_len) * num_tags, 0)
    if tag_indices.dtype == dtypes.int64:
        offsets = math_ops.cast(offsets, dtypes.int64)
    flattened_tag_indices = array_ops.reshape(offsets + tag_indices, [-1])
    unary_scores = array_ops.reshape(
        array_ops.gather(flattened_inputs, flattened_tag_indices), [batch_size, max_seq_len]
    )
    masks = array_ops.sequence_mask(sequence_lengths, maxlen=array_ops.shape(tag_indices)[1],
                                    dtype=dtypes.float32)  # fmt: skip
    return math_ops.reduce_sum(unary_scores * masks, 1)


def crf_binary_score(tag_indices, sequence_lengths, transition_params):
    num_tags = transition_params.get_shape()[0]
    num_transitions = array_ops.shape(tag_indices)[1] - 1
    start_tag_indices = array_ops.slice(tag_indices, [0, 0], [-1, num_transitions])
    end_tag_indices = array_ops.slice(tag_indices, [0, 1], [-1, num_transitions])
    flattened_transition_indices = start_tag_indices * num_tags + end_tag_indices
    flattened_transition_params = array_ops.reshape(transition_params, [-1])
    binary_scores = array_ops.gather(flattened_transition_params, flattened_transition_indices)
    masks = array_ops.sequence_mask(sequence_lengths, maxlen=array_ops.shape(tag_indices)[1],
                                    dtype=dtypes.float32)  # fmt: skip
    truncated_masks = array_ops.slice(masks, [0, 1], [-1, -1])
    return math_ops.reduce_sum(binary_scores * truncated_masks, 1)


class CrfForwardRnnCell(RNNCell):
    def __init__(self, transition_params):
        self._transition_params = array_ops.expand_dims(transition_params, 0)
        self._num_tags = tensor_shape.dimension_value(transition_params.shape[0])

    @property
    def state_size(self):
        return self._num_tags

    @property
    def output_size(self):
        return self._num_tags

    def __call__(self, inputs, state, scope=None):
        state = array_ops.expand_dims(state, 2)
        transition_scores = state + self._transition_params
        new_alphas = inputs + math_ops.reduce_logsumexp(transition_scores, [1])
        return new_alphas, new_alphas


def viterbi_decode(score, transition_params):
    trellis = np.zeros_like(score)
    backpointers = np.zeros_like(score, dtype=np.int32)
    trellis[0] = score[0]
    for t in range(1, score.shape[0]):
        v = np.expand_dims(trellis[t - 1], 1) + transition_params
        trellis[t] = score[t] + np.max(v, 0)
        backpointers[t] = np.argmax(v, 0)
    viterbi = [np.argmax(trellis[-1])]
    for bp in reversed(backpointers[1:]):
        viterbi.append(bp[viterbi[-1]])
    viterbi.reverse()
    viterbi_score = np.max(trellis[-1])
    return viterbi, viterbi_score


class CrfDecodeForwardRnnCell(RNNCell):
    def __init__(self, transition_params):
        self._transition_params = array_ops.expand_dims(transition_params, 0)
        self._num_tags = tensor_shape.dimension_value(transition_params.shape[0])

    @property
    def state_size(self):
        return self._num_tags

    @property
    def output_size(self):
        return self._num_tags

    def __call__(self, inputs, state, scope=None):
        state = array_ops.expand_dims(state, 2)
        transition_scores = state + self._transition_params
        new_state = inputs + math_ops.reduce_max(transition_scores, [1])
        backpointers = math_ops.argmax(transition_scores, 1)
        backpointers = math_ops.cast(backpointers, dtype=dtypes.int32)
        return backpointers, new_state


class CrfDecodeBackwardRnnCell(RNNCell):
    def __init__(self, num_tags):
        self._num_tags = num_tags

    @property
    def state_size(self):
        return 1

    @property
    def output_size(self):
        return 1

    def __call__(self, inputs, state, scope=None):
        state = array_ops.squeeze(state, axis=[1])
        batch_size = array_ops.shape(inputs)[0]
        b_indices = math_ops.range(batch_size)
        indices = array_ops_stack.stack([b_indices, state], axis=1)
        new_tags = array_ops.expand_dims(gen_array_ops.gather_nd(inputs, indices), axis=-1)
        return new_tags, new_tags


def crf_decode(potentials, transition_params, sequence_length):
    def _single_seq_fn():
        squeezed_potentials = array_ops.squeeze(potentials, [1])
        decode_tags = array_ops.expand_dims(math_ops.argmax(squeezed_potentials, axis=1), 1)
        best_score = math_ops.reduce_max(squeezed_potentials, axis=1)
        return math_ops.cast(decode_tags, dtype=dtypes.int32), best_score

    def _multi_seq_fn():
        num_tags = tensor_shape.dimension_value(potentials.shape[2])
        crf_fwd_cell = CrfDecodeForwardRnnCell(transition_params)
        initial_state = array_ops.slice(potentials, [0, 0, 0], [-1, 1, -1])
        initial_state = array_ops.squeeze(initial_state, axis=[1])
        inputs = array_ops.slice(potentials, [0, 1, 0], [-1, -1, -1])
        sequence_length_less_one = math_ops.maximum(
            constant_op.constant(0, dtype=sequence_length.dtype), sequence_length - 1
        )
        backpointers, last_score = rnn.dynamic_rnn(
            crf_fwd_cell, inputs=inputs, sequence_length=sequence_length_less_one,
            initial_state=initial_state, time_major=False, dtype=dtypes.int32)  # fmt: skip
        backpointers = gen_array_ops.reverse_sequence(
            backpointers, sequence_length_less_one, seq_dim=1
        )
        crf_bwd_cell = CrfDecodeBackwardRnnCell(num_tags)
        initial_state = math_ops.cast(math_ops.argmax(last_score, axis=1), dtype=dtypes.int32)
        initial_state = array_ops.expand_dims(initial_state, axis=-1)
        decode_tags, _ = rnn.dynamic_rnn(
            crf_bwd_cell, inputs=backpointers, sequence_length=sequence_length_less_one,
            initial_state=initial_state, time_major=False, dtype=dtypes.int32)  # fmt: skip
        decode_tags = array_ops.squeeze(decode_tags, axis=[2])
        decode_tags = array_ops.concat([initial_state, decode_tags], axis=1)
        decode_tags = gen_array_ops.reverse_sequence(decode_tags, sequence_length, seq_dim=1)
        best_score = math_ops.reduce_max(last_score, axis=1)
        return decode_tags, best_score

    return smart_cond.smart_cond(_single_step(potentials), _single_seq_fn, _multi_seq_fn)
