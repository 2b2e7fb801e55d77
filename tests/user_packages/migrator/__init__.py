"""A program's own package named ``migrator`` (a database or data migration
helper, say): see ``tests/user_packages/runtime``."""

OWNER = "the program"
