// sim/EventQueue.h: the timing wheel hands events out in exactly the (time, push order) a binary heap on
// Event::key() does, for pushes near the current time, far beyond the wheel, and before the latest pop.
#include "sim/EventQueue.h"

#include <doctest/doctest.h>

#include <functional>
#include <queue>
#include <random>

using namespace tlxsim::sim::engine;
using tlxsim::sim::Cycle;

TEST_CASE("event queue: same order as a heap on (time, seq)") {
  for (uint32_t seed : {1u, 2u, 3u}) {
    std::mt19937_64 rng(seed);
    EventQueue wheel;
    std::priority_queue<Event, std::vector<Event>, std::greater<Event>> heap;
    uint64_t seq = 0;
    Cycle now = 0;
    size_t popped = 0;
    for (int step = 0; step < 200000; ++step) {
      bool push = heap.empty() || rng() % 100 < 52;
      if (push) {
        uint64_t r = rng() % 1000;
        // mostly near now, some at now, some far beyond the wheel, a few before the latest pop
        Cycle t = r < 700 ? now + rng() % 3000 : r < 850 ? now : r < 990 ? now + 8000 + rng() % 100000
                                                                      : (now > 50 ? now - rng() % 50 : now);
        Event e{t, seq++, Event::RunAgent, static_cast<int32_t>(step)};
        wheel.push(e);
        heap.push(e);
      } else {
        REQUIRE(!wheel.empty());
        REQUIRE(wheel.top().seq == heap.top().seq);
        REQUIRE(wheel.top().t == heap.top().t);
        now = std::max(now, heap.top().t);
        wheel.pop();
        heap.pop();
        ++popped;
      }
      REQUIRE(wheel.size() == heap.size());
    }
    while (!heap.empty()) {
      REQUIRE(wheel.top().seq == heap.top().seq);
      wheel.pop();
      heap.pop();
    }
    CHECK(wheel.empty());
    CHECK(popped > 50000);
  }
}
