"""``tf.contrib.image``'s projective transforms for the legacy side, from TF 1.15's
``contrib/image/python/ops/image_ops.py``: ``transform`` over the
``ImageProjectiveTransformV2`` kernel (contrib's own op in TF 1.15, in TF 2.15's
core with a ``fill_mode`` whose default, ``CONSTANT``, is TF 1.15's zero fill),
``rotate`` and ``translate`` with the transforms they built."""

from tensorflow.python.framework import dtypes, ops, tensor_util
from tensorflow.python.ops import array_ops, gen_image_ops, math_ops

_IMAGE_DTYPES = {
    dtypes.uint8, dtypes.int32, dtypes.int64, dtypes.float16, dtypes.float32, dtypes.float64,
}  # fmt: skip


def _to_batch(image_or_images):
    if image_or_images.dtype.base_dtype not in _IMAGE_DTYPES:
        raise TypeError("Invalid dtype %s." % image_or_images.dtype)  # noqa: UP031
    elif image_or_images.get_shape().ndims is None:
        raise TypeError("image_or_images rank must be statically known")
    elif len(image_or_images.get_shape()) == 2:
        return image_or_images[None, :, :, None]
    elif len(image_or_images.get_shape()) == 3:
        return image_or_images[None, :, :, :]
    elif len(image_or_images.get_shape()) == 4:
        return image_or_images
    raise TypeError("Images should have rank between 2 and 4.")


def _from_batch(image_or_images, output):
    if len(image_or_images.get_shape()) == 2:
        return output[0, :, :, 0]
    elif len(image_or_images.get_shape()) == 3:
        return output[0, :, :, :]
    return output


def rotate(images, angles, interpolation="NEAREST", name=None):
    with ops.name_scope(name, "rotate"):
        image_or_images = ops.convert_to_tensor(images)
        images = _to_batch(image_or_images)
        image_height = math_ops.cast(array_ops.shape(images)[1], dtypes.float32)[None]
        image_width = math_ops.cast(array_ops.shape(images)[2], dtypes.float32)[None]
        output = transform(
            images,
            angles_to_projective_transforms(angles, image_height, image_width),
            interpolation=interpolation)  # fmt: skip
        return _from_batch(image_or_images, output)


def translate(images, translations, interpolation="NEAREST", name=None):
    with ops.name_scope(name, "translate"):
        return transform(
            images,
            translations_to_projective_transforms(translations),
            interpolation=interpolation)  # fmt: skip


def angles_to_projective_transforms(angles, image_height, image_width, name=None):
    with ops.name_scope(name, "angles_to_projective_transforms"):
        angle_or_angles = ops.convert_to_tensor(angles, name="angles", dtype=dtypes.float32)
        if len(angle_or_angles.get_shape()) == 0:
            angles = angle_or_angles[None]
        elif len(angle_or_angles.get_shape()) == 1:
            angles = angle_or_angles
        else:
            raise TypeError("Angles should have rank 0 or 1.")
        x_offset = (
            (image_width - 1)
            - (math_ops.cos(angles) * (image_width - 1) - math_ops.sin(angles) * (image_height - 1))
        ) / 2.0
        y_offset = (
            (image_height - 1)
            - (math_ops.sin(angles) * (image_width - 1) + math_ops.cos(angles) * (image_height - 1))
        ) / 2.0
        num_angles = array_ops.shape(angles)[0]
        return array_ops.concat(
            values=[
                math_ops.cos(angles)[:, None], -math_ops.sin(angles)[:, None], x_offset[:, None],
                math_ops.sin(angles)[:, None], math_ops.cos(angles)[:, None], y_offset[:, None],
                array_ops.zeros((num_angles, 2), dtypes.float32),
            ],
            axis=1)  # fmt: skip


def translations_to_projective_transforms(translations, name=None):
    with ops.name_scope(name, "translations_to_projective_transforms"):
        translation_or_translations = ops.convert_to_tensor(
            translations, name="translations", dtype=dtypes.float32)  # fmt: skip
        if translation_or_translations.get_shape().ndims is None:
            raise TypeError("translation_or_translations rank must be statically known")
        elif len(translation_or_translations.get_shape()) == 1:
            translations = translation_or_translations[None]
        elif len(translation_or_translations.get_shape()) == 2:
            translations = translation_or_translations
        else:
            raise TypeError("Translations should have rank 1 or 2.")
        num_translations = array_ops.shape(translations)[0]
        # The translation matrix looks like:
        #     [[1 0 -dx]
        #      [0 1 -dy]
        #      [0 0 1]]
        return array_ops.concat(
            values=[
                array_ops.ones((num_translations, 1), dtypes.float32),
                array_ops.zeros((num_translations, 1), dtypes.float32),
                -translations[:, 0, None],
                array_ops.zeros((num_translations, 1), dtypes.float32),
                array_ops.ones((num_translations, 1), dtypes.float32),
                -translations[:, 1, None],
                array_ops.zeros((num_translations, 2), dtypes.float32),
            ],
            axis=1)  # fmt: skip


def transform(images, transforms, interpolation="NEAREST", output_shape=None, name=None):
    with ops.name_scope(name, "transform"):
        image_or_images = ops.convert_to_tensor(images, name="images")
        transform_or_transforms = ops.convert_to_tensor(
            transforms, name="transforms", dtype=dtypes.float32)  # fmt: skip
        images = _to_batch(image_or_images)
        if output_shape is None:
            output_shape = array_ops.shape(images)[1:3]
            output_shape_value = tensor_util.constant_value(output_shape)
            if output_shape_value is not None:
                output_shape = output_shape_value
        output_shape = ops.convert_to_tensor(output_shape, dtypes.int32, name="output_shape")
        if not output_shape.get_shape().is_compatible_with([2]):
            raise ValueError(
                "output_shape must be a 1-D Tensor of 2 elements: new_height, new_width"
            )
        if len(transform_or_transforms.get_shape()) == 1:
            transforms = transform_or_transforms[None]
        elif transform_or_transforms.get_shape().ndims is None:
            raise TypeError("transforms rank must be statically known")
        elif len(transform_or_transforms.get_shape()) == 2:
            transforms = transform_or_transforms
        else:
            raise TypeError("Transforms should have rank 1 or 2.")
        output = gen_image_ops.image_projective_transform_v2(
            images, output_shape=output_shape, interpolation=interpolation.upper(),
            transforms=transforms)  # fmt: skip
        return _from_batch(image_or_images, output)
