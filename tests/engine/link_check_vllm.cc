// Links the vLLM engine's library alone (efimsim_engine_vllm and the engine
// core below it; tests/CMakeLists.txt): a call from sim/engine/vllm/ into
// another engine's folder, or into the registry above the engines, leaves
// an undefined symbol and this program does not build. Exits 0 when the
// engine's registry entry has its factory.
#include "sim/engine/vllm/vllm_v1_core.h"

int main() { return efimsim::VllmV1Engine().make != nullptr ? 0 : 1; }
