#pragma once
// An unsigned 128-bit integer, for full 64 x 64-bit products (unbiased
// bounded random integers, block-key hashing). A GCC and Clang extension on
// 64-bit targets; `__extension__` keeps -Wpedantic quiet about it.

namespace efimsim {

__extension__ typedef unsigned __int128 Uint128;

}  // namespace efimsim
