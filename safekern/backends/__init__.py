"""Backends: compile rewritten kernels with a GPU library, launch them, own failure buffers."""
