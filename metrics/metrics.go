// Package metrics exposes payport's Prometheus metrics: HTTP requests by
// route and status, payments by status, refunds, schedule lag, webhook
// deliveries by outcome and the outbox queue depth, and database pool use.
// It implements the service's Observer and the webhook dispatcher's
// attempt hook; the HTTP edge reports each request to it.
package metrics

import (
	"context"
	"net/http"
	"strconv"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"

	"github.com/payport/payport"
)

// Source is what the metrics read from storage when scraped.
type Source interface {
	OutboxDepth(ctx context.Context) (int, error)
}

// Pools reports the storage engine's connection pools.
type Pools interface {
	PoolStats() []payport.PoolStats
}

// Metrics holds payport's collectors in a registry of its own.
type Metrics struct {
	reg         *prometheus.Registry
	requests    *prometheus.CounterVec
	duration    *prometheus.HistogramVec
	payments    *prometheus.CounterVec
	refunds     *prometheus.CounterVec
	refunded    *prometheus.CounterVec
	scheduleLag prometheus.Histogram
	schedules   *prometheus.CounterVec
	webhooks    *prometheus.CounterVec
	webhookTime prometheus.Histogram
}

// New registers payport's metrics. src answers the queue depth at scrape
// time; pools, when not nil, the connection pools.
func New(src Source, pools Pools) *Metrics {
	m := &Metrics{
		reg: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "payport_http_requests_total", Help: "HTTP requests by route pattern, method and status.",
		}, []string{"route", "method", "status"}),
		duration: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name: "payport_http_request_duration_seconds", Help: "HTTP request latency by route pattern and method.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5},
		}, []string{"route", "method"}),
		payments: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "payport_payments_total", Help: "Payments recorded in, or moved to, each status.",
		}, []string{"status"}),
		refunds: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "payport_refunds_total", Help: "Refunds (full and partial) by currency.",
		}, []string{"currency"}),
		refunded: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "payport_refunded_amount_total", Help: "Refunded amount in the currency's minor unit.",
		}, []string{"currency"}),
		scheduleLag: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "payport_schedule_lag_seconds", Help: "Seconds between a schedule's schedule_at and its execution (merchant clock).",
			Buckets: []float64{0, 1, 2, 5, 10, 30, 60, 300, 3600},
		}),
		schedules: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "payport_schedules_executed_total", Help: "Scheduled payments executed, by payment status.",
		}, []string{"payment_status"}),
		webhooks: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "payport_webhook_deliveries_total", Help: "Webhook delivery attempts by outcome: delivered, retry (pending again) or failed.",
		}, []string{"outcome"}),
		webhookTime: prometheus.NewHistogram(prometheus.HistogramOpts{
			Name: "payport_webhook_delivery_duration_seconds", Help: "Duration of webhook delivery attempts.",
			Buckets: prometheus.DefBuckets,
		}),
	}
	m.reg.MustRegister(m.requests, m.duration, m.payments, m.refunds, m.refunded, m.scheduleLag, m.schedules, m.webhooks, m.webhookTime,
		collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	m.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "payport_webhook_queue_depth", Help: "Webhook events waiting to be delivered (all merchants; -1 when the database does not answer).",
	}, func() float64 {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		n, err := src.OutboxDepth(ctx)
		if err != nil {
			return -1
		}
		return float64(n)
	}))
	if pools != nil {
		m.reg.MustRegister(poolCollector{pools})
	}
	return m
}

// Handler serves the metrics in the Prometheus text format.
func (m *Metrics) Handler() http.Handler {
	return promhttp.HandlerFor(m.reg, promhttp.HandlerOpts{Registry: m.reg})
}

// ObserveRequest records one HTTP request; route is the matched pattern
// ("unmatched" for none), never the raw path, to keep cardinality bounded.
func (m *Metrics) ObserveRequest(route, method string, status int, d time.Duration) {
	if route == "" {
		route = "unmatched"
	}
	m.requests.WithLabelValues(route, method, strconv.Itoa(status)).Inc()
	m.duration.WithLabelValues(route, method).Observe(d.Seconds())
}

// PaymentChanged implements service.Observer.
func (m *Metrics) PaymentChanged(status payport.Status) {
	m.payments.WithLabelValues(string(status)).Inc()
}

// Refunded implements service.Observer.
func (m *Metrics) Refunded(currency payport.Currency, amount int64) {
	m.refunds.WithLabelValues(string(currency)).Inc()
	m.refunded.WithLabelValues(string(currency)).Add(float64(amount))
}

// ScheduleExecuted implements service.Observer.
func (m *Metrics) ScheduleExecuted(lag time.Duration, status payport.Status) {
	m.scheduleLag.Observe(lag.Seconds())
	m.schedules.WithLabelValues(string(status)).Inc()
}

// WebhookAttempt is the webhook dispatcher's OnAttempt hook.
func (m *Metrics) WebhookAttempt(state string, took time.Duration) {
	outcome := state
	if state == payport.EventPending {
		outcome = "retry"
	}
	m.webhooks.WithLabelValues(outcome).Inc()
	m.webhookTime.Observe(took.Seconds())
}

// poolCollector reports connection pools at scrape time.
type poolCollector struct{ pools Pools }

var poolDesc = prometheus.NewDesc("payport_db_pool_connections", "Database connections by pool and state (max, open, in_use, idle).",
	[]string{"pool", "state"}, nil)

func (c poolCollector) Describe(ch chan<- *prometheus.Desc) { ch <- poolDesc }

func (c poolCollector) Collect(ch chan<- prometheus.Metric) {
	for _, p := range c.pools.PoolStats() {
		for state, v := range map[string]int{"max": p.Max, "open": p.Open, "in_use": p.InUse, "idle": p.Idle} {
			ch <- prometheus.MustNewConstMetric(poolDesc, prometheus.GaugeValue, float64(v), p.Pool, state)
		}
	}
}
