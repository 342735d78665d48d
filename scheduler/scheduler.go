// Package scheduler runs due scheduled payments: a loop that asks the
// service to execute a bounded batch of due schedules in one transaction,
// again at once while batches come back full, and otherwise waits for its
// poll interval or a wake-up (a new schedule, an advanced test clock).
//
// Exactly-once execution is not this package's job: the service flips each
// schedule with a conditional update in the transaction that records its
// payment, so any number of schedulers (on one node or many) may run.
package scheduler

import (
	"context"
	"log/slog"
	"time"
)

// Runner executes up to limit due schedules and reports how many ran.
type Runner interface {
	RunDueSchedules(ctx context.Context, limit int) (int, error)
}

// Scheduler is the loop. Set the fields before Run.
type Scheduler struct {
	Runner Runner
	Logger *slog.Logger  // nil: discard
	Batch  int           // schedules per transaction; 0 → 200
	Poll   time.Duration // idle wait between rounds; 0 → 200 ms

	wake chan struct{}
}

// New returns a scheduler over r with the defaults.
func New(r Runner, logger *slog.Logger) *Scheduler {
	return &Scheduler{Runner: r, Logger: logger, wake: make(chan struct{}, 1)}
}

// Notify wakes the loop now; it never blocks.
func (s *Scheduler) Notify() {
	select {
	case s.wake <- struct{}{}:
	default:
	}
}

// Run loops until ctx is done. A round in progress when ctx ends is rolled
// back by its transaction, so nothing claimed is lost: the schedules are
// still due and the next scheduler to run takes them.
func (s *Scheduler) Run(ctx context.Context) error {
	batch, poll, logger := s.Batch, s.Poll, s.Logger
	if batch <= 0 {
		batch = 200
	}
	if poll <= 0 {
		poll = 200 * time.Millisecond
	}
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	if s.wake == nil {
		s.wake = make(chan struct{}, 1)
	}
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-timer.C:
		case <-s.wake:
		}
		n, err := s.Runner.RunDueSchedules(ctx, batch)
		switch {
		case ctx.Err() != nil:
			return nil
		case err != nil:
			logger.Error("scheduled payments", "err", err)
		case n > 0:
			logger.Info("scheduled payments executed", "count", n)
		}
		wait := poll
		if err == nil && n == batch {
			wait = 0 // more may be due
		}
		timer.Reset(wait)
	}
}
