"""The core: sync points and targets, configuration and its documentation, test isolation."""
