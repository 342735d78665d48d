package httpapi

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"regexp"
	"strings"
	"time"

	"github.com/go-chi/chi/v5"
	"github.com/go-chi/chi/v5/middleware"

	"github.com/payport/payport"
)

// MaxBodyBytes bounds every request body (decisions §1.3: larger is a 413).
const MaxBodyBytes = 1 << 20

type ctxKey int

const (
	ctxRequestID ctxKey = iota
	ctxMerchant
)

var safeRequestID = regexp.MustCompile(`^[A-Za-z0-9._-]{1,64}$`)

// withRequestID adopts a well-formed incoming X-Request-Id or makes one,
// echoes it in the response, and puts it in the context.
func withRequestID(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id := r.Header.Get("X-Request-Id")
		if !safeRequestID.MatchString(id) {
			id = newRequestID()
		}
		w.Header().Set("X-Request-Id", id)
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxRequestID, id)))
	})
}

func requestID(ctx context.Context) string {
	id, _ := ctx.Value(ctxRequestID).(string)
	return id
}

// withLog writes one structured line per request. It logs the route
// pattern and path, never the query string, headers or body, so secrets,
// tokens and card numbers cannot reach the log.
func withLog(logger *slog.Logger, metrics RequestObserver) func(http.Handler) http.Handler {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			start := time.Now()
			ww := middleware.NewWrapResponseWriter(w, r.ProtoMajor)
			next.ServeHTTP(ww, r)
			took, route := time.Since(start), chi.RouteContext(r.Context()).RoutePattern()
			if metrics != nil {
				metrics.ObserveRequest(route, r.Method, ww.Status(), took)
			}
			attrs := []any{
				"request_id", requestID(r.Context()), "method", r.Method, "path", r.URL.Path,
				"route", route, "status", ww.Status(),
				"bytes", ww.BytesWritten(), "duration_ms", float64(took.Microseconds()) / 1000,
			}
			if m, ok := r.Context().Value(ctxMerchant).(*payport.Merchant); ok && m.ID != 0 {
				attrs = append(attrs, "merchant_id", m.ID)
			}
			logger.LogAttrs(r.Context(), slog.LevelInfo, "request", slog.Group("http", attrs...))
		})
	}
}

// withRecover answers a panic with the internal-error envelope and logs it.
func withRecover(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				writeError(w, r, fmt.Errorf("panic: %v", v))
			}
		}()
		next.ServeHTTP(w, r)
	})
}

// withBodyLimit bounds the request body.
func withBodyLimit(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		r.Body = http.MaxBytesReader(w, r.Body, MaxBodyBytes)
		next.ServeHTTP(w, r)
	})
}

// bearerToken extracts the access token (decisions §2.2): `Authorization:
// Bearer <t>`, a raw `Authorization: <t>`, or `X-ImpTokenHeader: <t>`;
// Authorization wins.
func bearerToken(r *http.Request) string {
	if h := strings.TrimSpace(r.Header.Get("Authorization")); h != "" {
		if scheme, tok, ok := strings.Cut(h, " "); ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(tok)
		}
		return h
	}
	return strings.TrimSpace(r.Header.Get("X-ImpTokenHeader"))
}

// merchantFrom returns the authenticated merchant of the request.
func merchantFrom(r *http.Request) payport.Merchant {
	return *r.Context().Value(ctxMerchant).(*payport.Merchant)
}

// merchantSlot lets the logger see who the authenticated merchant was: the
// auth middleware fills a slot placed in the context before logging.
func withMerchantSlot(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		next.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), ctxMerchant, &payport.Merchant{})))
	})
}
