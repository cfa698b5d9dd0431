"""safekern's version: one place, read by the package face and by the cache keys."""
__version__ = "0.1.0"
