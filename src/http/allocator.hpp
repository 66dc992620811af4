// How the process's allocator (glibc's malloc) keeps and gives back memory: one policy, set at
// start by the binary and applied by the transport after a burst of connections has closed.
#pragma once

namespace smemu::http {

// Keeps the memory of large answers in the allocator between requests (thresholds fixed at what
// glibc reaches once it has served the dashboard's largest answers). Called once by the binary
// before any thread starts; a process that never calls it keeps glibc's own adaptive policy.
void KeepAnswerMemory();

// Gives free memory back to the system: inside every arena and at the top of the main one
// (malloc_trim), and, when KeepAnswerMemory() was called, at the top of each connection thread's
// arena too. That top shrinks only when its own thread frees a large block while the top exceeds
// the trim threshold, so GiveMemoryBack lowers the threshold and has each thread, in turn, run
// ShrinkThisThreadsArena; the last one calls `done`, which must call EndGivingMemoryBack.
bool BeginGivingMemoryBack();  // true: run ShrinkThisThreadsArena on every connection thread
void ShrinkThisThreadsArena();
void EndGivingMemoryBack();  // restores the threshold and trims the rest

}  // namespace smemu::http
