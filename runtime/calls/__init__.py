"""Calling the user's code: model_fn and input_fn with the arguments they declare,
the spec model_fn returns, and the inputs input_fn returns, as the programs read them."""
