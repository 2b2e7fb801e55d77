"""``tf.contrib.image``'s projective transforms, as TF 1.15 defined them.

``transform`` runs TensorFlow's ``ImageProjectiveTransformV2`` kernel, which was
contrib's own op in TF 1.15 and moved into TensorFlow's core in 2.3 with the
gradient contrib registered (the inverse transform of the incoming gradient).
TF 2 added a ``fill_mode`` to it; ``"CONSTANT"``, its default, is TF 1.15's
behaviour: an output pixel whose source lies outside the image reads 0.
``rotate`` and ``translate`` build the transform for each image as TF 1.15 did.

Each transform is 8 numbers ``[a0, a1, a2, b0, b1, b2, c0, c1]``: the output point
``(x, y)`` reads the input at ``((a0 x + a1 y + a2) / k, (b0 x + b1 y + b2) / k)``
with ``k = c0 x + c1 y + 1``.
"""

from __future__ import annotations

import tensorflow as tf

_IMAGE_DTYPES = frozenset({tf.uint8, tf.int32, tf.int64, tf.float16, tf.float32, tf.float64})


def transform(images, transforms, interpolation="NEAREST", output_shape=None, name=None):
    """Applies ``transforms`` (``[8]`` for every image or ``[batch, 8]``) to
    ``images`` (``[height, width]``, ``[height, width, channels]`` or a batch
    ``[batch, height, width, channels]``) with ``"NEAREST"`` or ``"BILINEAR"``
    interpolation; the result has the images' rank, and ``output_shape``
    (``[height, width]``, the images' by default)."""
    with tf.name_scope(name or "transform"):
        images = tf.convert_to_tensor(images, name="images")
        transforms = tf.convert_to_tensor(transforms, name="transforms", dtype=tf.float32)
        if images.dtype.base_dtype not in _IMAGE_DTYPES:
            raise TypeError(f"Invalid dtype {images.dtype}.")
        batch = _as_batch(images)
        if output_shape is None:
            output_shape = _static_or_dynamic(tf.shape(batch)[1:3])
        output_shape = tf.convert_to_tensor(output_shape, tf.int32, name="output_shape")
        if not output_shape.shape.is_compatible_with([2]):
            raise ValueError(
                "output_shape must be a 1-D Tensor of 2 elements: new_height, new_width"
            )
        output = tf.raw_ops.ImageProjectiveTransformV2(
            images=batch,
            transforms=_as_transform_batch(transforms),
            output_shape=output_shape,
            interpolation=interpolation.upper(),
            fill_mode="CONSTANT",
        )
        return _like(images, output)


def rotate(images, angles, interpolation="NEAREST", name=None):
    """Rotates each image counterclockwise by its angle (radians; one for all
    images or one per image) about its centre."""
    with tf.name_scope(name or "rotate"):
        images = tf.convert_to_tensor(images, name="images")
        batch = _as_batch(images)
        height = tf.cast(tf.shape(batch)[1], tf.float32)
        width = tf.cast(tf.shape(batch)[2], tf.float32)
        transforms = angles_to_projective_transforms(angles, height, width)
        return _like(images, transform(batch, transforms, interpolation=interpolation))


def translate(images, translations, interpolation="NEAREST", name=None):
    """Moves each image by ``[dx, dy]`` (one for all images or one per image)."""
    with tf.name_scope(name or "translate"):
        return transform(
            images,
            translations_to_projective_transforms(translations),
            interpolation=interpolation,
        )


def angles_to_projective_transforms(angles, image_height, image_width, name=None):
    """The transforms that rotate images of that size by ``angles`` about their centre."""
    with tf.name_scope(name or "angles_to_projective_transforms"):
        angles = tf.convert_to_tensor(angles, name="angles", dtype=tf.float32)
        if angles.shape.ndims == 0:
            angles = angles[None]
        elif angles.shape.ndims != 1:
            raise TypeError("Angles should have rank 0 or 1.")
        cos, sin = tf.cos(angles), tf.sin(angles)
        x_offset = ((image_width - 1) - (cos * (image_width - 1) - sin * (image_height - 1))) / 2.0
        y_offset = ((image_height - 1) - (sin * (image_width - 1) + cos * (image_height - 1))) / 2.0
        count = tf.shape(angles)[0]
        columns = [cos, -sin, x_offset, sin, cos, y_offset]
        return tf.concat(
            [column[:, None] for column in columns] + [tf.zeros((count, 2), tf.float32)],
            axis=1,
        )


def translations_to_projective_transforms(translations, name=None):
    """The transforms that move images by ``translations`` (``[dx, dy]`` or a batch)."""
    with tf.name_scope(name or "translations_to_projective_transforms"):
        translations = tf.convert_to_tensor(translations, name="translations", dtype=tf.float32)
        if translations.shape.ndims is None:
            raise TypeError("translation_or_translations rank must be statically known")
        if translations.shape.ndims == 1:
            translations = translations[None]
        elif translations.shape.ndims != 2:
            raise TypeError("Translations should have rank 1 or 2.")
        count = tf.shape(translations)[0]
        ones, zeros = tf.ones((count, 1), tf.float32), tf.zeros((count, 1), tf.float32)
        # The output point (x, y) reads the input at (x - dx, y - dy).
        return tf.concat(
            [
                ones,
                zeros,
                -translations[:, 0, None],
                zeros,
                ones,
                -translations[:, 1, None],
                tf.zeros((count, 2), tf.float32),
            ],
            axis=1,
        )


def compose_transforms(*transforms):
    """One transform equal to applying ``transforms`` right to left (the last one
    maps output points first, as a product of their matrices)."""
    if not transforms:
        raise AssertionError("transforms cannot be empty")
    with tf.name_scope("compose_transforms"):
        composed = flat_transforms_to_matrices(transforms[0])
        for flat in transforms[1:]:
            composed = tf.linalg.matmul(composed, flat_transforms_to_matrices(flat))
        return matrices_to_flat_transforms(composed)


def flat_transforms_to_matrices(transforms):
    """``[batch, 8]`` transforms as ``[batch, 3, 3]`` matrices (the 9th entry 1)."""
    with tf.name_scope("flat_transforms_to_matrices"):
        transforms = tf.convert_to_tensor(transforms, name="transforms")
        if transforms.shape.ndims not in (1, 2):
            raise ValueError(f"Transforms should be 1D or 2D, got: {transforms}")
        flat = tf.reshape(transforms, [-1, 8])
        ones = tf.ones([tf.shape(flat)[0], 1], dtype=flat.dtype)
        return tf.reshape(tf.concat([flat, ones], axis=1), [-1, 3, 3])


def matrices_to_flat_transforms(transform_matrices):
    """``[batch, 3, 3]`` (or ``[3, 3]``) matrices as ``[batch, 8]`` transforms,
    each divided by its last entry."""
    with tf.name_scope("matrices_to_flat_transforms"):
        matrices = tf.convert_to_tensor(transform_matrices, name="transform_matrices")
        if matrices.shape.ndims not in (2, 3):
            raise ValueError(f"Matrices should be 2D or 3D, got: {matrices}")
        flat = tf.reshape(matrices, [-1, 9])
        flat /= flat[:, 8:9]
        return flat[:, :8]


def _as_batch(images: tf.Tensor) -> tf.Tensor:
    """``images`` as a ``[batch, height, width, channels]`` batch."""
    rank = images.shape.ndims
    if rank is None:
        raise TypeError("image_or_images rank must be statically known")
    if rank == 2:
        return images[None, :, :, None]
    if rank == 3:
        return images[None, :, :, :]
    if rank == 4:
        return images
    raise TypeError("Images should have rank between 2 and 4.")


def _like(images: tf.Tensor, batch: tf.Tensor) -> tf.Tensor:
    """``batch`` back in the rank ``images`` came in."""
    rank = images.shape.ndims
    if rank == 2:
        return batch[0, :, :, 0]
    if rank == 3:
        return batch[0, :, :, :]
    return batch


def _as_transform_batch(transforms: tf.Tensor) -> tf.Tensor:
    rank = transforms.shape.ndims
    if rank is None:
        raise TypeError("transforms rank must be statically known")
    if rank == 1:
        return transforms[None]
    if rank == 2:
        return transforms
    raise TypeError("Transforms should have rank 1 or 2.")


def _static_or_dynamic(shape: tf.Tensor):
    """A graph's shape as its constant value where it is known (as TF 1.15 did)."""
    if tf.executing_eagerly():
        return shape
    value = tf.get_static_value(shape)
    return shape if value is None else value
