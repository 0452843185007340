// Links the SGLang engine's library alone (efimsim_engine_sglang and the
// engine core below it; tests/CMakeLists.txt): a call from
// sim/engine/sglang/ into another engine's folder, or into the registry
// above the engines, leaves an undefined symbol and this program does not
// build. Exits 0 when the engine's registry entry has its factory.
#include "sim/engine/sglang/sglang_core.h"

int main() { return efimsim::SglangEngine().make != nullptr ? 0 : 1; }
