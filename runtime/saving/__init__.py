"""What goes to and comes from disk: name-based checkpoints, warm starts,
SavedModel export, serving receivers and the exporters of ``train_and_evaluate``."""
