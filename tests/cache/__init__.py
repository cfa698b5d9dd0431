"""The kernel cache: the single-file store, its format, concurrency and crashes, the remote tier, the command line."""
