// Package notify is the seccomp user notification (seccomp_unotify(2))
// plumbing shared by the sandbox's init and its host: the kernel's structs,
// the ioctls on a listener, and the hand-over of a new listener from the
// init to the host over a SOCK_SEQPACKET socket (SCM_RIGHTS).
//
// # Why the host answers the launch
//
// An execution with command rules is forked by the init from a thread that
// carries an exec filter: the child's first execve (the execution's program
// itself) waits in the kernel for an answer on the filter's listener. Go
// forks with vfork, and the forking thread keeps its share of the Go
// scheduler (its P) until the child's exec: were the init's own guard
// goroutine to answer, a garbage collection that stops the world in that
// window would wait for the fork, the fork for the child's exec, and the
// exec for a goroutine the stopped world never runs — the init would hang
// for good (this happened, under load). So the init hands each new
// listener to the host before forking (Pass), the host answers that first
// notification with CONTINUE (AnswerLaunch) from a process the init's
// runtime cannot stop, and sends the token back (SendToken); only then
// does the init's guard read the listener's later notifications, which
// come from the execution's own processes, never from the init's forks.
//
// # Messages
//
// Init to host: one message of TokenSize bytes, the token (little endian),
// with exactly one descriptor, the listener. Host to init: the token alone,
// once the launch's exec was answered; or a token of the host's with one
// descriptor, the cgroup.threads file of an execution's cgroup, which the
// execution's Start names (wire.Start.Group: the sandbox package's "CPU
// time"). Take refuses any other shape than the init's, Receive any other
// than these two (closing what descriptors came with it).
package notify
