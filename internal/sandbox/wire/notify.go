package wire

// NotifyFD is the file descriptor of the notify socket in the init: a
// SOCK_SEQPACKET unix socket on which the init hands the host the listener
// of each exec filter it installs (an execution with command rules), and
// the host answers that filter's first exec, the launch of the execution's
// program (package notify has the messages and the reason).
const NotifyFD = 5
