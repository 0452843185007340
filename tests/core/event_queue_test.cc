#include "sim/core/event_queue.h"

#include <gtest/gtest.h>

#include "sim/base/check.h"

#include <algorithm>
#include <string_view>
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

// Interleaves `operations` pushes and pops (a push with probability
// push_percent, always when empty), then drains, checking every pop against
// a sorted reference. `offset(rng)`: how far after the last popped time a
// pushed event lies (the queue's precondition: never before it).
template <class Offset>
void CheckAgainstSortedReference(std::string_view stream, int operations, int64_t push_percent,
                                 Offset offset) {
  RandomStream rng = RandomStream::Derive(7, 0, stream);
  EventQueue queue;
  std::vector<Event> reference;
  uint64_t sequence = 0;
  int64_t last_popped_ns = 1000;
  auto pop_and_check = [&](int operation) {
    auto best = std::min_element(reference.begin(), reference.end(), EventPopsBefore);
    const Event popped = queue.Pop();
    ASSERT_EQ(popped.payload, best->payload) << "operation " << operation;
    last_popped_ns = ToNanoseconds(popped.time);
    reference.erase(best);
  };
  for (int i = 0; i < operations; ++i) {
    if (reference.empty() || rng.UniformInt(0, 99) < push_percent) {
      Event e;
      e.time = TimePoint{Nanoseconds(last_popped_ns + offset(rng))};
      e.event_class = static_cast<EventClass>(rng.UniformInt(0, kEventClassCount - 1));
      e.payload = sequence;
      e.sequence = sequence++;
      queue.Push(e);
      reference.push_back(e);
    } else {
      pop_and_check(i);
    }
    ASSERT_EQ(queue.size(), reference.size());
  }
  while (!reference.empty()) pop_and_check(operations);
  EXPECT_TRUE(queue.empty());
}

TEST(EventQueue, MatchesASortedReferenceUnderRandomInterleaving) {
  // Spans from one nanosecond to about 2^40, so that both the
  // current-instant heap and every radix bucket are exercised.
  CheckAgainstSortedReference("test.event_queue", 20000, 67, [](RandomStream& rng) {
    const int64_t span = int64_t{1} << rng.UniformInt(0, 40);
    return rng.UniformInt(0, 3) * rng.UniformInt(0, span) / 3;
  });
}

// Times packed into a few hundred nanoseconds ahead of the clock: many
// events share a nanosecond, both in the lowest level's slots and its side
// list, while others cross into the next digit's buckets and are split back
// down, onto slots already taken.
TEST(EventQueue, DenseNanosecondsMatchASortedReference) {
  CheckAgainstSortedReference("test.event_queue_dense", 30000, 50, [](RandomStream& rng) {
    return rng.UniformInt(0, 3) * rng.UniformInt(0, 300);
  });
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
