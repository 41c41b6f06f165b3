package run

import (
	"sync"
	"syscall"
	"testing"
	"time"
)

// processCPU is this process's CPU time (user + system), for per-op CPU
// figures that the machine's load inflates less than wall time.
func processCPU() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// BenchmarkThreadMeter measures what a ThreadMeter costs the in-process
// backends, each case with and without the meter in the same run:
// a goroutine started and joined (a pipeline stage's life: Enter and
// leave), and two goroutines handing 100 values back and forth over
// channels (pipeline stages exchanging data: each block and wake-up of a
// locked goroutine goes through its own thread). It reports wall ns/op and
// the process's CPU ns/op.
func BenchmarkThreadMeter(b *testing.B) {
	report := func(b *testing.B, cpu0 time.Duration) {
		b.ReportMetric(float64(processCPU()-cpu0)/float64(b.N), "cpu-ns/op")
	}
	for _, metered := range []bool{false, true} {
		name := "bare"
		if metered {
			name = "metered"
		}
		b.Run("goroutine/"+name, func(b *testing.B) {
			var m ThreadMeter
			cpu0 := processCPU()
			for b.Loop() {
				var wg sync.WaitGroup
				wg.Add(1)
				go func() {
					defer wg.Done()
					if metered {
						defer m.Enter()()
					}
					burnSink.Add(1)
				}()
				wg.Wait()
			}
			report(b, cpu0)
		})
		b.Run("pingpong100/"+name, func(b *testing.B) {
			var m ThreadMeter
			cpu0 := processCPU()
			for b.Loop() {
				ping, pong := make(chan int), make(chan int)
				done := make(chan struct{})
				go func() {
					defer close(done)
					if metered {
						defer m.Enter()()
					}
					for v := range ping {
						pong <- v + 1
					}
				}()
				func() {
					if metered {
						defer m.Enter()()
					}
					for i := range 100 {
						ping <- i
						<-pong
					}
					close(ping)
				}()
				<-done
			}
			report(b, cpu0)
		})
	}
	// Metered, the goroutines leaving the meter while they block (Pause,
	// as the shell's pipes do).
	b.Run("pingpong100/metered-paused", func(b *testing.B) {
		var m ThreadMeter
		recv := func(c chan int) (int, bool) {
			resume := m.Pause()
			defer resume()
			v, ok := <-c
			return v, ok
		}
		send := func(c chan int, v int) {
			resume := m.Pause()
			defer resume()
			c <- v
		}
		cpu0 := processCPU()
		for b.Loop() {
			ping, pong := make(chan int), make(chan int)
			done := make(chan struct{})
			go func() {
				defer close(done)
				defer m.Enter()()
				for {
					v, ok := recv(ping)
					if !ok {
						return
					}
					send(pong, v+1)
				}
			}()
			func() {
				defer m.Enter()()
				for i := range 100 {
					send(ping, i)
					recv(pong)
				}
				close(ping)
			}()
			<-done
		}
		report(b, cpu0)
	})
	b.Run("read/2-live", func(b *testing.B) {
		var m ThreadMeter
		stop := make(chan struct{})
		var wg sync.WaitGroup
		entered := make(chan struct{}, 2)
		for range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer m.Enter()()
				entered <- struct{}{}
				<-stop
			}()
		}
		<-entered
		<-entered
		for b.Loop() {
			m.Read()
		}
		close(stop)
		wg.Wait()
	})
}
