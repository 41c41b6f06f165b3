package jsvm

import "syscall"

// threadID is the calling OS thread's id.
func threadID() int { return syscall.Gettid() }

// lowerPriority gives the OS thread tid the lowest CPU priority (nice 19),
// which needs no privilege.
func lowerPriority(tid int) error {
	if tid == 0 {
		return syscall.ESRCH
	}
	return syscall.Setpriority(syscall.PRIO_PROCESS, tid, 19)
}
