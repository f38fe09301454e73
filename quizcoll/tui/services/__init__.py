"""What the screens drive, without textual: environment, database thread, review sessions."""
