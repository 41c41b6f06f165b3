package initproc

import (
	"bytes"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"time"
)

// reap waits for every child and orphan of the sandbox (the init is pid 1) and
// hands the status of an execution's main process to it.
func (s *server) reap() {
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGCHLD)
	for {
		for {
			var ws syscall.WaitStatus
			var ru syscall.Rusage
			pid, err := syscall.Wait4(-1, &ws, syscall.WNOHANG, &ru)
			if pid <= 0 || err != nil {
				break
			}
			s.mu.Lock()
			x := s.byPID[pid]
			if x != nil {
				delete(s.byPID, pid)
			} else {
				s.keepEarlyLocked(pid, ws, ru)
			}
			s.mu.Unlock()
			if x != nil {
				go x.ended(ws, ru)
			}
		}
		<-ch
	}
}

// keepEarlyLocked keeps the status of an unregistered pid for its launch,
// forgetting statuses older than a minute (orphans: nobody will ask).
func (s *server) keepEarlyLocked(pid int, ws syscall.WaitStatus, ru syscall.Rusage) {
	now := time.Now()
	if len(s.early) >= 64 {
		for p, r := range s.early {
			if now.Sub(r.at) > time.Minute {
				delete(s.early, p)
			}
		}
	}
	if len(s.early) < 1<<16 {
		s.early[pid] = reaped{ws: ws, ru: ru, at: now}
	}
}

// proc is what the init reads of a process in /proc/PID/stat.
type proc struct {
	pid, sid int
	zombie   bool
}

// procs lists the processes of the sandbox (the init sees its own pid namespace).
func procs() []proc {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []proc
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue // gone meanwhile
		}
		// pid (comm) state ppid pgrp session ...; comm may hold anything, so
		// fields are counted from the last ')'.
		i := bytes.LastIndexByte(b, ')')
		if i < 0 {
			continue
		}
		f := bytes.Fields(b[i+1:])
		if len(f) < 4 {
			continue
		}
		sid, err := strconv.Atoi(string(f[3]))
		if err != nil {
			continue
		}
		out = append(out, proc{pid: pid, sid: sid, zombie: len(f[0]) == 1 && (f[0][0] == 'Z' || f[0][0] == 'X')})
	}
	return out
}

// signalSession sends sig to process group sid and to every live process of
// session sid, and returns how many live processes the session had.
func signalSession(sid int, sig syscall.Signal) int {
	syscall.Kill(-sid, sig)
	n := 0
	for _, p := range procs() {
		if p.sid == sid && !p.zombie && p.pid != 1 {
			syscall.Kill(p.pid, sig)
			n++
		}
	}
	return n
}

// killSession kills every process of session sid with SIGKILL, repeating
// while some remain (a process may fork while the scan runs; a killed one
// cannot), for at most about a second.
func killSession(sid int) {
	for i := 0; i < 200; i++ {
		if signalSession(sid, syscall.SIGKILL) == 0 {
			return
		}
		time.Sleep(time.Duration(min(i+1, 10)) * time.Millisecond)
	}
}

// killOthers kills every process but the init whose session is not in keep.
func killOthers(keep map[int]bool) {
	for i := 0; i < 200; i++ {
		n := 0
		for _, p := range procs() {
			if p.pid != 1 && p.pid != os.Getpid() && !p.zombie && !keep[p.sid] {
				syscall.Kill(p.pid, syscall.SIGKILL)
				n++
			}
		}
		if n == 0 {
			return
		}
		time.Sleep(time.Duration(min(i+1, 10)) * time.Millisecond)
	}
}

// sessionCounts counts live processes per session.
func sessionCounts() map[int]int {
	m := map[int]int{}
	for _, p := range procs() {
		if !p.zombie {
			m[p.sid]++
		}
	}
	return m
}
