#include "sim/core/event.h"

namespace efimsim {

const char* EventClassName(EventClass event_class) {
  switch (event_class) {
    case EventClass::kStepComplete: return "step_complete";
    case EventClass::kClientTimer: return "client_timer";
    case EventClass::kRequestArrival: return "request_arrival";
    case EventClass::kSchedule: return "schedule";
    case EventClass::kSimulationControl: return "simulation_control";
  }
  return "unknown";
}

}  // namespace efimsim
