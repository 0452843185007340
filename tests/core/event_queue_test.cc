#include "sim/core/event_queue.h"

#include <gtest/gtest.h>

#include "sim/base/check.h"

#include <algorithm>
#include <vector>

#include "sim/core/random.h"
#include "sim/core/simulator.h"

namespace efimsim {
namespace {

TEST(EventQueue, SameTimeEventsOfEveryClassPopInDocumentedClassOrder) {
  const std::vector<EventClass> scrambled = {
      EventClass::kSchedule, EventClass::kSimulationControl, EventClass::kRequestArrival,
      EventClass::kStepComplete, EventClass::kClientTimer};
  EventQueue queue;
  for (const EventClass c : scrambled) {
    Event e;
    e.time = TimePoint{Nanoseconds(100)};
    e.event_class = c;
    queue.Push(e);
  }
  std::vector<EventClass> popped;
  while (!queue.empty()) popped.push_back(queue.Pop().event_class);
  EXPECT_EQ(popped, (std::vector<EventClass>{EventClass::kStepComplete, EventClass::kClientTimer,
                                             EventClass::kRequestArrival, EventClass::kSchedule,
                                             EventClass::kSimulationControl}));
}

TEST(EventQueue, EarlierTimeBeatsClassAndSameClassIsFifo) {
  EventQueue queue;
  auto push = [&](int64_t ns, EventClass c, uint64_t payload) {
    Event e;
    e.time = TimePoint{Nanoseconds(ns)};
    e.event_class = c;
    e.payload = payload;
    queue.Push(e);
  };
  push(20, EventClass::kStepComplete, 1);
  push(10, EventClass::kSimulationControl, 2);
  push(10, EventClass::kSchedule, 3);
  push(10, EventClass::kSchedule, 4);
  push(10, EventClass::kSchedule, 5);
  std::vector<uint64_t> order;
  while (!queue.empty()) order.push_back(queue.Pop().payload);
  EXPECT_EQ(order, (std::vector<uint64_t>{3, 4, 5, 2, 1}));
}

TEST(EventQueue, MatchesASortedReferenceUnderRandomInterleaving) {
  RandomStream rng = RandomStream::Derive(7, 0, "test.event_queue");
  EventQueue queue;
  std::vector<Event> reference;
  uint64_t sequence = 0;
  int64_t last_popped_ns = 0;
  for (int i = 0; i < 20000; ++i) {
    if (reference.empty() || rng.UniformInt(0, 2) > 0) {
      // Times from the last popped instant onwards (the queue's precondition),
      // over spans from one nanosecond to about 2^40, so that both the
      // current-instant heap and every radix bucket are exercised.
      Event e;
      const int64_t span = int64_t{1} << rng.UniformInt(0, 40);
      e.time = TimePoint{Nanoseconds(last_popped_ns + rng.UniformInt(0, 3) * rng.UniformInt(0, span) / 3)};
      e.event_class = static_cast<EventClass>(rng.UniformInt(0, kEventClassCount - 1));
      e.payload = sequence;
      e.sequence = sequence++;
      queue.Push(e);
      reference.push_back(e);
    } else {
      auto best = std::min_element(reference.begin(), reference.end(), EventPopsBefore);
      const Event popped = queue.Pop();
      ASSERT_EQ(popped.payload, best->payload);
      last_popped_ns = ToNanoseconds(popped.time);
      reference.erase(best);
    }
  }
  EXPECT_EQ(queue.size(), reference.size());
}

TEST(EventQueue, PushBeforeTheLastPoppedTimeIsAnInternalError) {
  EventQueue queue;
  Event e;
  e.time = TimePoint{Nanoseconds(10)};
  queue.Push(e);
  queue.Pop();
  e.time = TimePoint{Nanoseconds(10)};
  EXPECT_NO_THROW(queue.Push(e));
  e.time = TimePoint{Nanoseconds(9)};
  EXPECT_THROW(queue.Push(e), InternalError);
}

TEST(EventQueue, PopOnEmptyQueueIsAnInternalError) {
  EventQueue queue;
  EXPECT_THROW(queue.Pop(), InternalError);
}

class Recorder : public EventHandler {
 public:
  void HandleEvent(const Event& event) override { seen.push_back(event.payload); }
  std::vector<uint64_t> seen;
};

TEST(Simulator, RefusesEventsInThePast) {
  Simulator simulator;
  Recorder recorder;
  simulator.Schedule(TimePoint{Nanoseconds(10)}, EventClass::kSchedule, &recorder, 1);
  simulator.Run();
  EXPECT_EQ(simulator.Now(), TimePoint{Nanoseconds(10)});
  EXPECT_THROW(simulator.Schedule(TimePoint{Nanoseconds(5)}, EventClass::kSchedule, &recorder),
               InternalError);
}

}  // namespace
}  // namespace efimsim
