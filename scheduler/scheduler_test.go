package scheduler_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/payport/payport/scheduler"
)

// runner hands out due work from a counter and records the batch sizes asked for.
type runner struct {
	mu    sync.Mutex
	due   int
	calls int
	err   error
}

func (r *runner) RunDueSchedules(_ context.Context, limit int) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.calls++
	if r.err != nil {
		return 0, r.err
	}
	n := min(limit, r.due)
	r.due -= n
	return n, nil
}

func (r *runner) state() (due, calls int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.due, r.calls
}

func (r *runner) add(n int) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.due += n
}

func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(time.Millisecond)
	}
}

func start(t *testing.T, s *scheduler.Scheduler) (stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { _ = s.Run(ctx); close(done) }()
	return func() { cancel(); <-done }
}

func TestScheduler_DrainsFullBatchesWithoutWaiting(t *testing.T) {
	t.Parallel()
	r := &runner{due: 1050}
	s := scheduler.New(r, nil)
	s.Batch, s.Poll = 100, time.Hour // only back-to-back full batches can drain it
	stop := start(t, s)
	defer stop()
	waitUntil(t, "all due work", func() bool { due, _ := r.state(); return due == 0 })
	if _, calls := r.state(); calls != 11 {
		t.Fatalf("calls = %d, want 11 (10 full batches and one partial)", calls)
	}
}

func TestScheduler_NotifyWakesTheIdleLoop(t *testing.T) {
	t.Parallel()
	r := &runner{}
	s := scheduler.New(r, nil)
	s.Poll = time.Hour
	stop := start(t, s)
	defer stop()
	waitUntil(t, "the first round", func() bool { _, calls := r.state(); return calls == 1 })
	r.add(5)
	s.Notify()
	waitUntil(t, "the woken round", func() bool { due, _ := r.state(); return due == 0 })
}

func TestScheduler_ErrorsAreRetriedAtThePollInterval(t *testing.T) {
	t.Parallel()
	r := &runner{err: errors.New("database is down")}
	s := scheduler.New(r, nil)
	s.Poll = time.Millisecond
	stop := start(t, s)
	waitUntil(t, "retries", func() bool { _, calls := r.state(); return calls >= 3 })
	stop() // returns: Run ends when its context does
}
