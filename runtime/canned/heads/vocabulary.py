"""Label vocabularies: string labels to class ids and back, through the lookup
tables tensorflow-estimator's heads built (a new one in each graph)."""

from tensorflow.python.ops import lookup_ops


def validate(label_vocabulary) -> None:
    if label_vocabulary is not None and not isinstance(label_vocabulary, (list, tuple)):
        raise ValueError(
            f"label_vocabulary should be a list or a tuple. Given type: {type(label_vocabulary)}"
        )


def class_ids(label_vocabulary, labels):
    table = lookup_ops.index_table_from_tensor(
        vocabulary_list=tuple(label_vocabulary), name="class_id_lookup"
    )
    return table.lookup(labels)


def class_names(label_vocabulary, ids):
    table = lookup_ops.index_to_string_table_from_tensor(
        vocabulary_list=label_vocabulary, name="class_string_lookup"
    )
    return table.lookup(ids)
