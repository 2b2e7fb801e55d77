"""tf.contrib.image's projective transforms on the runtime, checked against what
TF 1.15 documented they compute: the output point (x, y) reads the input at the
transformed point, 0 outside the image, nearest or bilinear; rotations about the
centre, translations by [dx, dy]; the images' rank kept; TF 1.15's errors."""

import numpy as np
import pytest
import tensorflow as tf

from estimator_revival.contrib import image

# A 3x4 image whose pixel (y, x) holds 10 y + x: every source point is recognisable.
PIXELS = np.array([[10 * y + x for x in range(4)] for y in range(3)], np.float32)


def test_the_identity_transform_returns_the_image_in_its_own_rank():
    identity = [1, 0, 0, 0, 1, 0, 0, 0]
    np.testing.assert_array_equal(image.transform(PIXELS, identity), PIXELS)
    batch = np.stack([PIXELS[..., None], 2 * PIXELS[..., None]])
    out = image.transform(batch, [identity, identity])
    assert out.shape == (2, 3, 4, 1)
    np.testing.assert_array_equal(out, batch)


def test_a_translation_reads_the_shifted_point_and_zero_outside():
    moved = image.translate(PIXELS, [1, 0])  # (x, y) reads (x - 1, y)
    expected = np.zeros_like(PIXELS)
    expected[:, 1:] = PIXELS[:, :-1]
    np.testing.assert_array_equal(moved, expected)
    down = image.translate(PIXELS, [0, 2])  # (x, y) reads (x, y - 2)
    np.testing.assert_array_equal(down[2], PIXELS[0])
    np.testing.assert_array_equal(down[:2], np.zeros((2, 4), np.float32))


def test_bilinear_interpolation_averages_the_neighbours_of_a_half_pixel():
    # (x, y) reads (x + 0.5, y): the mean of pixels x and x + 1 of the same row,
    # half of the last pixel where x + 1 lies outside the image.
    half = image.transform(PIXELS, [1, 0, 0.5, 0, 1, 0, 0, 0], interpolation="bilinear")
    expected = np.concatenate([(PIXELS[:, :-1] + PIXELS[:, 1:]) / 2, PIXELS[:, -1:] / 2], axis=1)
    np.testing.assert_allclose(half, expected, rtol=1e-6)


def test_a_half_turn_about_the_centre_reverses_rows_and_columns():
    turned = image.rotate(PIXELS[..., None], np.pi)
    np.testing.assert_array_equal(turned[..., 0], PIXELS[::-1, ::-1])
    quarter = image.angles_to_projective_transforms(np.pi / 2, 3.0, 3.0)
    # A quarter turn of a 3x3 image: (x, y) reads (2 - y, x).
    np.testing.assert_allclose(quarter, [[0, -1, 2, 1, 0, 0, 0, 0]], atol=1e-6)


def test_composed_transforms_apply_right_to_left_and_keep_a_batch():
    right, up = [1, 0, -1, 0, 1, 0, 0, 0], [1, 0, 0, 0, 1, -2, 0, 0]
    composed = image.compose_transforms(right, up)
    np.testing.assert_allclose(composed, [[1, 0, -1, 0, 1, -2, 0, 0]])
    matrices = image.flat_transforms_to_matrices([right, up])
    assert matrices.shape == (2, 3, 3)
    np.testing.assert_allclose(image.matrices_to_flat_transforms(2 * matrices), [right, up])


def test_the_output_shape_crops_or_pads_and_the_gradient_flows_back():
    cropped = image.transform(PIXELS, [1, 0, 1, 0, 1, 1, 0, 0], output_shape=[2, 2])
    np.testing.assert_array_equal(cropped, PIXELS[1:3, 1:3])
    images = tf.constant(PIXELS)
    with tf.GradientTape() as tape:
        tape.watch(images)
        total = tf.reduce_sum(image.translate(images, [1, 0]))
    # Every pixel but the last column's is read once.
    expected = np.ones_like(PIXELS)
    expected[:, -1] = 0
    np.testing.assert_array_equal(tape.gradient(total, images), expected)


@pytest.mark.parametrize(
    "call, error, message",
    [
        (
            lambda: image.transform(np.zeros([2, 2, 2, 2, 2], np.float32), [1] * 8),
            TypeError,
            "Images should have rank between 2 and 4",
        ),
        (
            lambda: image.transform(PIXELS, np.ones([1, 1, 8])),
            TypeError,
            "Transforms should have rank 1 or 2",
        ),
        (lambda: image.transform(PIXELS.astype(np.int8), [1] * 8), TypeError, "Invalid dtype"),
        (
            lambda: image.transform(PIXELS, [1] * 8, output_shape=[1, 2, 3]),
            ValueError,
            "output_shape must be a 1-D Tensor of 2 elements",
        ),
        (
            lambda: image.angles_to_projective_transforms([[1.0]], 2, 2),
            TypeError,
            "Angles should have rank 0 or 1",
        ),
        (lambda: image.compose_transforms(), AssertionError, "transforms cannot be empty"),
    ],
)
def test_bad_arguments_are_refused_as_tf_1_15_did(call, error, message):
    with pytest.raises(error, match=message):
        call()
