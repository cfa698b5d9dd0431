"""Drop-in compatibility: numba-cuda's own test suite and constructs, supported versions, the documentation's examples."""
