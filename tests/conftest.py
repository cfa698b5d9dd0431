"""Fixtures every test folder may use (the process-wide set-up is the repository's conftest.py:
simulator or GPU, the kernel cache in a temporary directory, a fresh configuration per test)."""
import pytest

from tests.support.checks import load_kernel_module


@pytest.fixture
def kernel_module(tmp_path):
    """`kernel_module(source, name="user_kernels", register=False)`: the module of kernels
    written from `source` into this test's directory and imported."""
    def load(source, name="user_kernels", *, register=False):
        return load_kernel_module(tmp_path, source, name, register=register)
    return load
