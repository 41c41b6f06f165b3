package vfs

import (
	"context"
	"fmt"
	"syscall"
	"testing"
	"time"
)

func cpuNow() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func TestZZCPU(t *testing.T) {
	ctx := context.Background()
	f, _ := Open(ctx, t.TempDir()+"/x.db", Options{})
	defer f.Close()
	c0, w0 := cpuNow(), time.Now()
	for i := 0; i < 2000; i++ {
		if err := f.Mkdir(ctx, fmt.Sprintf("/d%d", i), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("mkdir: cpu %v wall %v per op", (cpuNow()-c0)/2000, time.Since(w0)/2000)
	c0, w0 = cpuNow(), time.Now()
	for i := 0; i < 2000; i++ {
		if err := f.WriteFile(ctx, fmt.Sprintf("/d%d/f", i), make([]byte, 1024), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("create 1KiB: cpu %v wall %v per op", (cpuNow()-c0)/2000, time.Since(w0)/2000)
	c0, w0 = cpuNow(), time.Now()
	for i := 0; i < 2000; i++ {
		if _, err := f.Stat(ctx, fmt.Sprintf("/d%d/f", i)); err != nil {
			t.Fatal(err)
		}
	}
	t.Logf("stat: cpu %v wall %v per op", (cpuNow()-c0)/2000, time.Since(w0)/2000)
}

func BenchmarkZZStat(b *testing.B) {
	ctx := context.Background()
	f, _ := Open(ctx, b.TempDir()+"/x.db", Options{})
	defer f.Close()
	f.MkdirAll(ctx, "/src/pkg/internal", 0o755)
	f.WriteFile(ctx, "/src/pkg/internal/file.go", []byte("x"), 0o644)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := f.Stat(ctx, "/src/pkg/internal/file.go"); err != nil {
			b.Fatal(err)
		}
	}
}
