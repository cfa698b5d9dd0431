"""A stand-in for CuPy's `CArray` / `CIndexer` / `CUPY_FOR` (cupy/carray.cuh), written for
safekern's tests: the interface the checked ElementwiseKernel/ReductionKernel views use --
size(), shape(), indexing by a linear index and by one index per axis, the 0-dim form, const
and non-const -- so that CI compiles their sources with NVRTC without CuPy. The tests compile
against CuPy's own header too where one is found (an installed CuPy, or .cupy_peer/ filled by
`python -m tests.support.cupy_peer fetch`)."""
from __future__ import annotations

import os

CARRAY_STAND_IN = r"""
template <typename T, int _ndim, bool _c_contiguous = false, bool _use_32bit_indexing = false>
class CArray {
 public:
  static const int ndim = _ndim;
  T* data_;
  ptrdiff_t size_;
  ptrdiff_t shape_[_ndim];
  ptrdiff_t strides_[_ndim];
  __device__ ptrdiff_t size() const { return size_; }
  __device__ const ptrdiff_t* shape() const { return shape_; }
  __device__ const ptrdiff_t* strides() const { return strides_; }
  template <typename Int>
  __device__ const T& operator[](const Int (&idx)[_ndim]) const {
    ptrdiff_t off = 0;
    for (int d = 0; d < _ndim; ++d) off += strides_[d] * (ptrdiff_t)idx[d];
    return *(const T*)((const char*)data_ + off);
  }
  template <typename Int>
  __device__ T& operator[](const Int (&idx)[_ndim]) {
    return const_cast<T&>(const_cast<const CArray&>(*this)[idx]);
  }
  __device__ const T& operator[](ptrdiff_t i) const { return data_[i]; }
  __device__ T& operator[](ptrdiff_t i) { return data_[i]; }
};
template <typename T, bool _use_32bit_indexing>
class CArray<T, 0, true, _use_32bit_indexing> {
 public:
  static const int ndim = 0;
  T* data_;
  __device__ ptrdiff_t size() const { return 1; }
  template <typename U> __device__ T& operator[](const U&) { return *data_; }
  template <typename U> __device__ T operator[](const U&) const { return *data_; }
};
template <int _ndim, bool _use_32bit_indexing = false>
class CIndexer {
 public:
  typedef ptrdiff_t index_t[_ndim];
  ptrdiff_t size_;
  index_t index_;
  __device__ ptrdiff_t size() const { return size_; }
  __device__ void set(ptrdiff_t i) { index_[0] = i; }
  __device__ const index_t& get() const { return index_; }
};
template <bool _use_32bit_indexing>
class CIndexer<0, _use_32bit_indexing> {
 public:
  __device__ ptrdiff_t size() const { return 1; }
  __device__ void set(ptrdiff_t) {}
  __device__ const ptrdiff_t* get() const { return NULL; }
};
#define CUPY_FOR(i, n) \
  for (ptrdiff_t i = threadIdx.x + (ptrdiff_t)blockIdx.x * blockDim.x; i < (n); \
       i += (ptrdiff_t)blockDim.x * gridDim.x)
"""


def cupy_include_dir() -> str | None:
    """A directory holding CuPy's own cupy/carray.cuh, or None."""
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    candidates = [os.path.join(root, ".cupy_peer", "include")]
    try:
        import cupy

        candidates.insert(0, os.path.join(os.path.dirname(cupy.__file__), "_core", "include"))
    except Exception:
        pass
    for path in candidates:
        if os.path.exists(os.path.join(path, "cupy", "carray.cuh")):
            return path
    return None


__all__ = ["CARRAY_STAND_IN", "cupy_include_dir"]
