#pragma once
// RAII ownership of device memory. Move-only; the destructor frees. Failure
// to allocate throws std::runtime_error (buffers are made by the harness and
// tests, never inside a launcher).

#include <cuda_runtime.h>

#include <cstddef>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace efimsim::kernels::cuda {

template <class T>
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    if (count == 0) return;
    const cudaError_t err = cudaMalloc(reinterpret_cast<void**>(&ptr_), count * sizeof(T));
    if (err != cudaSuccess) {
      ptr_ = nullptr;
      throw std::runtime_error("cudaMalloc(" + std::to_string(count * sizeof(T)) +
                               " bytes): " + cudaGetErrorString(err));
    }
  }
  ~DeviceBuffer() { reset(); }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer(DeviceBuffer&& o) noexcept : ptr_(std::exchange(o.ptr_, nullptr)), count_(std::exchange(o.count_, 0)) {}
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept {
    if (this != &o) {
      reset();
      ptr_ = std::exchange(o.ptr_, nullptr);
      count_ = std::exchange(o.count_, 0);
    }
    return *this;
  }

  T* data() const { return ptr_; }
  std::size_t size() const { return count_; }
  std::size_t bytes() const { return count_ * sizeof(T); }

  // Host element type U must have T's size (e.g. kernels::bf16 for bf16_t).
  template <class U>
  cudaError_t upload(std::span<const U> host) {
    static_assert(sizeof(U) == sizeof(T));
    if (host.size() != count_) return cudaErrorInvalidValue;
    return cudaMemcpy(ptr_, host.data(), bytes(), cudaMemcpyHostToDevice);
  }
  template <class U>
  cudaError_t download(std::span<U> host) const {
    static_assert(sizeof(U) == sizeof(T));
    if (host.size() != count_) return cudaErrorInvalidValue;
    return cudaMemcpy(host.data(), ptr_, bytes(), cudaMemcpyDeviceToHost);
  }

 private:
  void reset() {
    if (ptr_ != nullptr) cudaFree(ptr_);
    ptr_ = nullptr;
    count_ = 0;
  }
  T* ptr_ = nullptr;
  std::size_t count_ = 0;
};

}  // namespace efimsim::kernels::cuda
