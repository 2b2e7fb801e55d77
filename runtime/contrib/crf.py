"""``tf.contrib.crf``, a linear-chain conditional random field, as TF 1.15 defined
it: Python over TensorFlow ops (``dynamic_rnn`` runs the forward algorithm and
Viterbi decoding), so the same ops give the same numbers on TF 2. Inputs are
batch-major unary scores ``[batch, time, tags]``; ``crf_log_likelihood`` makes
the variable ``transitions`` (``[tags, tags]``) when it is not given.
"""

from __future__ import annotations

import numpy as np
import tensorflow as tf
from tensorflow.python.framework import smart_cond

_RNNCell = tf.compat.v1.nn.rnn_cell.RNNCell


def _time_steps_equal_one(inputs):
    """Whether the inputs hold one time step: a Python bool when the shape says."""
    return tf.equal(tf.compat.v1.dimension_value(inputs.shape[1]) or tf.shape(inputs)[1], 1)


def crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params):
    """The unnormalized score of each tag sequence: ``[batch]``."""

    def single_step():
        batch_size = tf.shape(inputs, out_type=tag_indices.dtype)[0]
        example_indices = tf.reshape(tf.range(batch_size, dtype=tag_indices.dtype), [-1, 1])
        scores = tf.gather_nd(
            tf.squeeze(inputs, [1]), tf.concat([example_indices, tag_indices], axis=1)
        )
        return tf.compat.v1.where(tf.less_equal(sequence_lengths, 0), tf.zeros_like(scores), scores)

    def several_steps():
        unary_scores = crf_unary_score(tag_indices, sequence_lengths, inputs)
        binary_scores = crf_binary_score(tag_indices, sequence_lengths, transition_params)
        return unary_scores + binary_scores

    return smart_cond.smart_cond(_time_steps_equal_one(inputs), single_step, several_steps)


def crf_multitag_sequence_score(inputs, tag_bitmap, sequence_lengths, transition_params):
    """The log of the summed scores of the sequences whose tags ``tag_bitmap`` allows."""
    filtered = tf.compat.v1.where(tag_bitmap, inputs, tf.fill(tf.shape(inputs), float("-inf")))

    def single_step():
        return tf.reduce_logsumexp(filtered, axis=[1, 2], keepdims=False)

    def several_steps():
        return crf_log_norm(filtered, sequence_lengths, transition_params)

    return smart_cond.smart_cond(_time_steps_equal_one(inputs), single_step, several_steps)


def crf_log_norm(inputs, sequence_lengths, transition_params):
    """The log partition function of each sequence, by the forward algorithm."""
    first_input = tf.squeeze(tf.slice(inputs, [0, 0, 0], [-1, 1, -1]), [1])

    def masked(log_norm):
        return tf.compat.v1.where(
            tf.less_equal(sequence_lengths, 0), tf.zeros_like(log_norm), log_norm
        )

    def single_step():
        return masked(tf.reduce_logsumexp(first_input, [1]))

    def several_steps():
        rest_of_input = tf.slice(inputs, [0, 1, 0], [-1, -1, -1])
        lengths_less_one = tf.maximum(
            tf.constant(0, dtype=sequence_lengths.dtype), sequence_lengths - 1
        )
        _, alphas = tf.compat.v1.nn.dynamic_rnn(
            cell=CrfForwardRnnCell(transition_params),
            inputs=rest_of_input,
            sequence_length=lengths_less_one,
            initial_state=first_input,
            dtype=tf.float32,
        )
        return masked(tf.reduce_logsumexp(alphas, [1]))

    max_seq_len = tf.shape(inputs)[1]
    return tf.compat.v1.cond(
        pred=tf.equal(max_seq_len, 1), true_fn=single_step, false_fn=several_steps
    )


def crf_log_likelihood(inputs, tag_indices, sequence_lengths, transition_params=None):
    """``(log_likelihood [batch], transition_params)``; the transitions are the
    variable ``transitions`` of the current scope when not given."""
    num_tags = tf.compat.v1.dimension_value(inputs.shape[2])
    if transition_params is None:
        transition_params = tf.compat.v1.get_variable("transitions", [num_tags, num_tags])
    sequence_scores = crf_sequence_score(inputs, tag_indices, sequence_lengths, transition_params)
    log_norm = crf_log_norm(inputs, sequence_lengths, transition_params)
    return sequence_scores - log_norm, transition_params


def crf_unary_score(tag_indices, sequence_lengths, inputs):
    """The sum of the unary scores of each sequence's tags: ``[batch]``."""
    batch_size = tf.shape(inputs)[0]
    max_seq_len = tf.shape(inputs)[1]
    num_tags = tf.shape(inputs)[2]
    flattened_inputs = tf.reshape(inputs, [-1])
    offsets = tf.expand_dims(tf.range(batch_size) * max_seq_len * num_tags, 1)
    offsets += tf.expand_dims(tf.range(max_seq_len) * num_tags, 0)
    if tag_indices.dtype == tf.int64:
        offsets = tf.cast(offsets, tf.int64)
    flattened_tag_indices = tf.reshape(offsets + tag_indices, [-1])
    unary_scores = tf.reshape(
        tf.gather(flattened_inputs, flattened_tag_indices), [batch_size, max_seq_len]
    )
    masks = tf.sequence_mask(sequence_lengths, maxlen=tf.shape(tag_indices)[1], dtype=tf.float32)
    return tf.reduce_sum(unary_scores * masks, 1)


def crf_binary_score(tag_indices, sequence_lengths, transition_params):
    """The sum of the transition scores of each sequence's tags: ``[batch]``."""
    num_tags = transition_params.get_shape()[0]
    num_transitions = tf.shape(tag_indices)[1] - 1
    start_tag_indices = tf.slice(tag_indices, [0, 0], [-1, num_transitions])
    end_tag_indices = tf.slice(tag_indices, [0, 1], [-1, num_transitions])
    flattened_transition_indices = start_tag_indices * num_tags + end_tag_indices
    flattened_transition_params = tf.reshape(transition_params, [-1])
    binary_scores = tf.gather(flattened_transition_params, flattened_transition_indices)
    masks = tf.sequence_mask(sequence_lengths, maxlen=tf.shape(tag_indices)[1], dtype=tf.float32)
    truncated_masks = tf.slice(masks, [0, 1], [-1, -1])
    return tf.reduce_sum(binary_scores * truncated_masks, 1)


class _TransitionsCell(_RNNCell):
    """A step over the tags with the transition scores: a score per tag as state
    and output."""

    def __init__(self, transition_params):
        self._transition_params = tf.expand_dims(transition_params, 0)
        self._num_tags = tf.compat.v1.dimension_value(transition_params.shape[0])

    @property
    def state_size(self):
        return self._num_tags

    @property
    def output_size(self):
        return self._num_tags


class CrfForwardRnnCell(_TransitionsCell):
    """One step of the forward algorithm: the alphas are the state and the output."""

    def __call__(self, inputs, state, scope=None):
        state = tf.expand_dims(state, 2)
        transition_scores = state + self._transition_params
        new_alphas = inputs + tf.reduce_logsumexp(transition_scores, [1])
        return new_alphas, new_alphas


def viterbi_decode(score, transition_params):
    """The highest-scoring tag sequence of one ``[time, tags]`` score array, in
    numpy: ``(tags, score)``."""
    trellis = np.zeros_like(score)
    backpointers = np.zeros_like(score, dtype=np.int32)
    trellis[0] = score[0]
    for t in range(1, score.shape[0]):
        v = np.expand_dims(trellis[t - 1], 1) + transition_params
        trellis[t] = score[t] + np.max(v, 0)
        backpointers[t] = np.argmax(v, 0)
    viterbi = [np.argmax(trellis[-1])]
    for backpointer in reversed(backpointers[1:]):
        viterbi.append(backpointer[viterbi[-1]])
    viterbi.reverse()
    return viterbi, np.max(trellis[-1])


class CrfDecodeForwardRnnCell(_TransitionsCell):
    """One step of Viterbi's forward pass: backpointers out, best scores as state."""

    def __call__(self, inputs, state, scope=None):
        state = tf.expand_dims(state, 2)
        transition_scores = state + self._transition_params
        new_state = inputs + tf.reduce_max(transition_scores, [1])
        backpointers = tf.cast(tf.argmax(transition_scores, 1), dtype=tf.int32)
        return backpointers, new_state


class CrfDecodeBackwardRnnCell(_RNNCell):
    """One step of Viterbi's backward pass: follows the backpointers."""

    def __init__(self, num_tags):
        self._num_tags = num_tags

    @property
    def state_size(self):
        return 1

    @property
    def output_size(self):
        return 1

    def __call__(self, inputs, state, scope=None):
        state = tf.squeeze(state, axis=[1])
        indices = tf.stack([tf.range(tf.shape(inputs)[0]), state], axis=1)
        new_tags = tf.expand_dims(tf.gather_nd(inputs, indices), axis=-1)
        return new_tags, new_tags


def crf_decode(potentials, transition_params, sequence_length):
    """The highest-scoring tag sequences, in the graph: ``(tags [batch, time]
    int32, best scores [batch])``."""

    def single_step():
        squeezed = tf.squeeze(potentials, [1])
        decode_tags = tf.expand_dims(tf.argmax(squeezed, axis=1), 1)
        best_score = tf.reduce_max(squeezed, axis=1)
        return tf.cast(decode_tags, dtype=tf.int32), best_score

    def several_steps():
        num_tags = tf.compat.v1.dimension_value(potentials.shape[2])
        initial_state = tf.squeeze(tf.slice(potentials, [0, 0, 0], [-1, 1, -1]), axis=[1])
        inputs = tf.slice(potentials, [0, 1, 0], [-1, -1, -1])
        lengths_less_one = tf.maximum(
            tf.constant(0, dtype=sequence_length.dtype), sequence_length - 1
        )
        backpointers, last_score = tf.compat.v1.nn.dynamic_rnn(
            CrfDecodeForwardRnnCell(transition_params),
            inputs=inputs,
            sequence_length=lengths_less_one,
            initial_state=initial_state,
            time_major=False,
            dtype=tf.int32,
        )
        backpointers = tf.reverse_sequence(backpointers, lengths_less_one, seq_axis=1)
        initial_state = tf.cast(tf.argmax(last_score, axis=1), dtype=tf.int32)
        initial_state = tf.expand_dims(initial_state, axis=-1)
        decode_tags, _ = tf.compat.v1.nn.dynamic_rnn(
            CrfDecodeBackwardRnnCell(num_tags),
            inputs=backpointers,
            sequence_length=lengths_less_one,
            initial_state=initial_state,
            time_major=False,
            dtype=tf.int32,
        )
        decode_tags = tf.squeeze(decode_tags, axis=[2])
        decode_tags = tf.concat([initial_state, decode_tags], axis=1)
        decode_tags = tf.reverse_sequence(decode_tags, sequence_length, seq_axis=1)
        return decode_tags, tf.reduce_max(last_score, axis=1)

    return smart_cond.smart_cond(_time_steps_equal_one(potentials), single_step, several_steps)
