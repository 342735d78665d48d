package httpapi

import (
	"context"
	"log/slog"
	"net/http"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/payport/payport"
	"github.com/payport/payport/service"
)

// Options configure the HTTP edge.
type Options struct {
	// Logger receives request logs; nil discards them.
	Logger *slog.Logger
	// Sandbox mounts payport's own /sandbox API (decisions §6).
	Sandbox bool
	// Metrics, when set, learns of every request and is served at GET /metrics.
	Metrics Metrics
	// Ready, when set, is asked by GET /readyz whether storage answers.
	Ready func(ctx context.Context) error
}

// RequestObserver learns of every request: its route pattern, method,
// status and duration.
type RequestObserver interface {
	ObserveRequest(route, method string, status int, d time.Duration)
}

// Metrics observes requests and serves what it gathered.
type Metrics interface {
	RequestObserver
	Handler() http.Handler
}

type handler struct {
	svc   *service.Service
	ready func(ctx context.Context) error
}

// New returns the HTTP handler of the whole API.
func New(svc *service.Service, opts Options) http.Handler {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	h := &handler{svc: svc, ready: opts.Ready}
	r := chi.NewRouter()
	var observer RequestObserver
	if opts.Metrics != nil {
		observer = opts.Metrics
	}
	r.Use(withRequestID, withMerchantSlot, withLog(opts.Logger, observer), withRecover, withBodyLimit, middleware.StripSlashes)
	r.NotFound(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, payport.Errorf(kindNoRoute, "no such endpoint: %s %s", r.Method, r.URL.Path))
	})
	r.MethodNotAllowed(func(w http.ResponseWriter, r *http.Request) {
		writeError(w, r, payport.Errorf(kindMethod, "method %s is not allowed on %s", r.Method, r.URL.Path))
	})

	r.Get("/healthz", h.healthz)
	r.Get("/readyz", h.readyz)
	if opts.Metrics != nil {
		r.Method(http.MethodGet, "/metrics", opts.Metrics.Handler())
	}
	r.Get("/openapi.json", serveOpenAPI)
	r.Get("/docs", serveDocs)
	r.Post("/users/getToken", h.getToken)
	r.Post("/v2/signin/api-key", h.signIn)
	r.Post("/v2/token-regeneration", h.regenerate)

	r.Group(func(r chi.Router) {
		r.Use(h.authenticate)
		r.Get("/payments", h.payments)
		r.Get("/payments/{imp_uid}", h.payment)
		r.Get("/payments/find/{merchant_uid}", h.findPayment)
		r.Get("/payments/find/{merchant_uid}/{payment_status}", h.findPayment)
		r.Get("/payments/{imp_uid}/balance", h.balance)
		r.Post("/payments/cancel", h.cancel)
		r.Post("/vbanks", h.vbank)
		r.Post("/subscribe/payments/onetime", h.onetime)
		r.Post("/subscribe/payments/again", h.again)
		r.Get("/subscribe/customers/{customer_uid}", h.customer)
		r.Post("/subscribe/customers/{customer_uid}", h.issueCustomer)
		r.Delete("/subscribe/customers/{customer_uid}", h.deleteCustomer)
		r.Get("/subscribe/customers/{customer_uid}/schedules", h.schedules)
		r.Post("/subscribe/payments/schedule", h.schedule)
		r.Get("/subscribe/payments/schedule/customers/{customer_uid}", h.schedules)
		r.Get("/subscribe/payments/schedule/{merchant_uid}", h.scheduleByMerchantUID)
		r.Post("/subscribe/payments/unschedule", h.unschedule)
		if opts.Sandbox {
			r.Get("/sandbox/clock", h.clock)
			r.Post("/sandbox/clock/advance", h.advanceClock)
			r.Get("/sandbox/webhooks", h.webhooks)
			r.Post("/sandbox/webhooks/{id}/redeliver", h.redeliver)
			r.Post("/sandbox/payments", h.sandboxPayment)
			r.Post("/sandbox/vbanks/{imp_uid}/deposit", h.deposit)
		}
	})
	return r
}

// NewServer returns an http.Server for h with bounded header, read, write
// and idle times and header size.
func NewServer(addr string, h http.Handler) *http.Server {
	return &http.Server{
		Addr:              addr,
		Handler:           h,
		ReadHeaderTimeout: 10 * time.Second,
		ReadTimeout:       30 * time.Second,
		WriteTimeout:      60 * time.Second,
		IdleTimeout:       120 * time.Second,
		MaxHeaderBytes:    64 << 10,
	}
}

func (h *handler) healthz(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}

// authenticate resolves the bearer token before any other check; failure
// is a 401 envelope.
func (h *handler) authenticate(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m, err := h.svc.Authenticate(r.Context(), bearerToken(r))
		if err != nil {
			writeError(w, r, err)
			return
		}
		*r.Context().Value(ctxMerchant).(*payport.Merchant) = m
		next.ServeHTTP(w, r)
	})
}
