package sandbox

import (
	"runtime"
	"syscall"
)

// Seccomp is a seccomp profile in the form of the OCI runtime specification
// (linux.seccomp), which runc compiles with libseccomp.
type Seccomp struct {
	DefaultAction string        `json:"defaultAction"`
	Architectures []string      `json:"architectures"`
	Syscalls      []SyscallRule `json:"syscalls"`
}

// SyscallRule applies Action to the named system calls (when every Args
// condition holds). Names unknown to the kernel's architecture are skipped by
// runc.
type SyscallRule struct {
	Names    []string     `json:"names"`
	Action   string       `json:"action"`
	ErrnoRet *uint        `json:"errnoRet,omitempty"`
	Args     []SeccompArg `json:"args,omitempty"`
}

// SeccompArg is a condition on argument Index: Op is SCMP_CMP_EQ, ..., or
// SCMP_CMP_MASKED_EQ ((arg & Value) == ValueTwo).
type SeccompArg struct {
	Index    uint   `json:"index"`
	Value    uint64 `json:"value"`
	ValueTwo uint64 `json:"valueTwo,omitempty"`
	Op       string `json:"op"`
}

// deniedSyscalls are refused with EPERM by DefaultSeccomp, grouped by why.
var deniedSyscalls = [][]string{
	// Changing the kernel or the machine.
	{"kexec_load", "kexec_file_load", "init_module", "finit_module", "delete_module", "create_module",
		"reboot", "swapon", "swapoff", "syslog", "acct", "settimeofday", "clock_settime", "clock_adjtime",
		"adjtimex", "iopl", "ioperm", "quotactl", "quotactl_fd"},
	// Mounts and namespaces: the sandbox's layout is fixed when it starts.
	{"mount", "umount2", "pivot_root", "unshare", "setns", "open_tree", "move_mount", "fsopen", "fsconfig",
		"fsmount", "fspick", "mount_setattr"},
	// Kernel keyrings are not namespaced.
	{"add_key", "request_key", "keyctl"},
	// Large kernel attack surfaces that programs rarely need.
	{"bpf", "perf_event_open", "userfaultfd", "io_uring_setup", "io_uring_enter", "io_uring_register",
		"lookup_dcookie", "kcmp"},
	// File handles bypass path checks (the "shocker" escape).
	{"open_by_handle_at", "name_to_handle_at"},
	// Obsolete interfaces.
	{"uselib", "ustat", "sysfs", "_sysctl", "nfsservctl", "get_kernel_syms", "query_module", "vm86", "vm86old"},
}

// cloneNamespaceFlags are the clone(2) flags that make namespaces: clone with
// any of them is refused (clone3, whose flags seccomp cannot read, returns
// ENOSYS so that the C library falls back to clone).
var cloneNamespaceFlags = []uint64{
	syscall.CLONE_NEWNS, syscall.CLONE_NEWCGROUP, syscall.CLONE_NEWUTS, syscall.CLONE_NEWIPC,
	syscall.CLONE_NEWUSER, syscall.CLONE_NEWPID, syscall.CLONE_NEWNET,
}

// DefaultSeccomp returns the profile sandboxes run with unless
// Options.Seccomp replaces it. It allows every system call except the ones
// listed in deniedSyscalls (EPERM), clone with a namespace flag (EPERM) and
// clone3 (ENOSYS). Only the host's native architecture is listed, so 32-bit
// system calls (int 0x80 on amd64) are refused by runc's handling of foreign
// architectures.
//
// It is a deny list, which is smaller to read and to keep than Docker's
// allow list of some 350 calls, at a cost: a system call added to the kernel
// later is allowed until it is listed here. The user namespace (which makes
// root in the sandbox an unprivileged uid on the host) and the dropped
// capabilities are the main barriers; the profile trims the kernel surface
// behind them.
func DefaultSeccomp() *Seccomp {
	eperm, enosys := uint(syscall.EPERM), uint(syscall.ENOSYS)
	p := &Seccomp{DefaultAction: "SCMP_ACT_ALLOW", Architectures: nativeArch()}
	for _, names := range deniedSyscalls {
		p.Syscalls = append(p.Syscalls, SyscallRule{Names: names, Action: "SCMP_ACT_ERRNO", ErrnoRet: &eperm})
	}
	p.Syscalls = append(p.Syscalls, SyscallRule{Names: []string{"clone3"}, Action: "SCMP_ACT_ERRNO", ErrnoRet: &enosys})
	for _, f := range cloneNamespaceFlags {
		p.Syscalls = append(p.Syscalls, SyscallRule{Names: []string{"clone"}, Action: "SCMP_ACT_ERRNO", ErrnoRet: &eperm,
			Args: []SeccompArg{{Index: 0, Value: f, ValueTwo: f, Op: "SCMP_CMP_MASKED_EQ"}}})
	}
	return p
}

// nativeArch names the host's architecture for libseccomp.
func nativeArch() []string {
	switch runtime.GOARCH {
	case "amd64":
		return []string{"SCMP_ARCH_X86_64"}
	case "arm64":
		return []string{"SCMP_ARCH_AARCH64"}
	case "riscv64":
		return []string{"SCMP_ARCH_RISCV64"}
	}
	return nil // runc then uses the native architecture
}
