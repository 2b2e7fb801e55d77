"""Shaping predict()'s output as Estimator did: key selection and per-example rows."""

from __future__ import annotations


def examples(predictions, yield_single_examples: bool):
    """What predict() yields for one batch."""
    if not yield_single_examples:
        yield predictions
    elif not isinstance(predictions, dict):
        yield from predictions
    else:
        for i in range(batch_length(predictions)):
            yield {key: value[i] for key, value in predictions.items()}


def real_rows(predictions, padding_mask):
    """The rows of a padded batch that came from the input (TPU predict padding)."""
    if isinstance(predictions, dict):
        return {key: value[padding_mask] for key, value in predictions.items()}
    return predictions[padding_mask]


def select_keys(predictions, predict_keys):
    if not predict_keys:
        return predictions
    if not isinstance(predictions, dict):
        raise ValueError("predict_keys argument is not valid in case of non-dict predictions.")
    selected = {k: v for k, v in predictions.items() if k in predict_keys}
    if not selected:
        raise ValueError(
            f"Expected to run at least one output from {predictions.keys()}, provided {predict_keys}."
        )
    return selected


def batch_length(predictions: dict) -> int:
    length = None
    for key, value in predictions.items():
        length = length or value.shape[0]
        if value.shape[0] != length:
            raise ValueError(
                f"Batch length of predictions should be same. {key} has different batch "
                "length than others."
            )
    return length or 0
