// How the process's allocator (glibc's malloc) keeps and gives back memory: one policy, set at
// start by the binary and applied by the transport after a burst of connections has closed.
#pragma once

namespace smemu::http {

// Keeps the memory of large answers in the allocator between requests (thresholds fixed at what
// glibc reaches once it has served the dashboard's largest answers). Called once by the binary
// before any thread starts; a process that never calls it keeps glibc's own adaptive policy.
void KeepAnswerMemory();

// Giving free memory back to the system after a burst of connections. malloc_trim gives back
// what is free inside every arena and at the top of the main one, but not at the top of a
// connection thread's arena: that shrinks only when its own thread frees a large block while the
// top exceeds the trim threshold, which KeepAnswerMemory() set high. So:
//   if (BeginGivingMemoryBack())   // lowers the threshold; false when KeepAnswerMemory() was not
//     ShrinkThisThreadsArena();    // ... called, on every connection thread
//   EndGivingMemoryBack();         // once they all have: restores the threshold, malloc_trim
bool BeginGivingMemoryBack();
void ShrinkThisThreadsArena();
void EndGivingMemoryBack();

}  // namespace smemu::http
