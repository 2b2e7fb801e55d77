"""The TF 1 graph semantics the runtime reproduces inside ``tf.function``: discovery
of the legacy graph, op seeds, variables by TF 1 name, collections, session setup,
read order and the updates a Session never ran."""
