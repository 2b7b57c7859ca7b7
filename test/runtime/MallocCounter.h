#ifndef NUNC_TEST_RUNTIME_MALLOCCOUNTER_H
#define NUNC_TEST_RUNTIME_MALLOCCOUNTER_H
/// Starts counting heap allocations (all threads).
void mallocCounterArm();
/// Stops counting; returns the allocations since arming.
long mallocCounterDisarm();
#endif
