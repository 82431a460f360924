package members

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"strings"
	"syscall"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// RequestError says in words what a failed request to a member means and
// what to do about it, for reports that already name the member. Errors
// of the API server itself (conflicts, validation) already say it and are
// returned as they are.
//
// It tells apart what users act on differently: a connection refused (no
// server), one that cannot be made (network), one that broke while the
// server answered (a reset: the request may have been done), a certificate
// that is not trusted (the kubeconfig), and which timeout fired — the TLS
// handshake's or the request's (--timeout); RequestErrorIn also tells the
// run's --deadline.
func RequestError(err error) error {
	var status apierrors.APIStatus
	var opErr *net.OpError
	var urlErr *url.Error
	var unknownAuthority x509.UnknownAuthorityError
	var hostname x509.HostnameError
	var invalid x509.CertificateInvalidError
	var cfgErr *ConfigError
	var capiErr *ClusterAPIError
	var deadline *DeadlineError
	var noAnswer *NoAnswerError
	switch {
	case errors.As(err, &noAnswer):
		return noAnswer // it says which deadline, and what hangs
	case errors.As(err, &deadline):
		return deadline // net/http returns the context's cause
	case errors.As(err, &cfgErr):
		// the report names the member already
		return cfgErr.inMember()
	case errors.As(err, &capiErr):
		return capiErr.inMember()
	case errors.As(err, &status):
		if apierrors.IsUnauthorized(err) {
			return errors.New("the API server rejected the credentials (401 Unauthorized); refresh the user's credentials in the kubeconfig (for a member from Cluster API, in its Cluster's kubeconfig Secret)")
		}
		return err
	case errors.Is(err, context.Canceled):
		return errors.New("interrupted")
	case errors.As(err, &unknownAuthority), errors.As(err, &hostname), errors.As(err, &invalid),
		strings.Contains(err.Error(), "x509: "), strings.Contains(err.Error(), "tls: failed to verify"):
		return errors.New("the API server's certificate is not trusted (" + tlsCause(err) + "); check certificate-authority-data and the server address of the context in the kubeconfig (for a member from Cluster API, in its Cluster's kubeconfig Secret)")
	case errors.Is(err, syscall.ECONNREFUSED):
		return errors.New("the API server refused the connection; is the cluster running? (fedctl get clusters checks every member)")
	case strings.Contains(err.Error(), "TLS handshake timeout"):
		return errors.New("the API server accepted the connection but did not complete the TLS handshake within 10s (client-go's TLS handshake timeout)")
	case errors.Is(err, context.DeadlineExceeded):
		// client-go bounds each request with a context of the request
		// timeout; a deadline of the run's is told apart by RequestErrorIn.
		return errors.New("the API server did not answer one request within the request timeout (--timeout)")
	case errors.As(err, &urlErr) && urlErr.Timeout():
		return errors.New("the API server did not answer one request within the request timeout (--timeout)")
	case errors.Is(err, syscall.ECONNRESET), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, syscall.EPIPE):
		return errors.New("the connection to the API server broke while it was answering (" + rootCause(err) + "); fedctl retried until its time ran out")
	case errors.As(err, &opErr) && opErr.Op == "dial":
		return errors.New("the API server cannot be reached: " + rootCause(opErr))
	case errors.As(err, &opErr):
		return errors.New("the connection to the API server failed: " + rootCause(opErr))
	}
	return err
}

// rootCause is the innermost error's text: "connection reset by peer",
// without the addresses of every layer on the way.
func rootCause(err error) string {
	for {
		next := errors.Unwrap(err)
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

// tlsCause is the x509 or tls part of err's text.
func tlsCause(err error) string {
	msg := err.Error()
	for _, marker := range []string{"x509: ", "tls: "} {
		if i := strings.Index(msg, marker); i >= 0 {
			return msg[i:]
		}
	}
	return msg
}

// DeadlineError is the cause of a member's context ending because the
// run's --deadline passed, or the member's own budget ran out when there
// is none. RequestErrorIn reports it instead of the request's error.
type DeadlineError struct {
	// Flag is the flag that set the time ("--deadline"), empty for the
	// default budget.
	Flag string
	D    time.Duration
}

func (e *DeadlineError) Error() string {
	if e.Flag == "" {
		return fmt.Sprintf("the member's %s budget ran out (set --deadline to choose the time of the whole run)", ShortDuration(e.D))
	}
	return fmt.Sprintf("deadline reached (%s %s)", e.Flag, ShortDuration(e.D))
}

// ShortDuration is d as a flag would give it: 10m, not 10m0s.
func ShortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}

// RequestErrorIn is RequestError for a request made with ctx: when ctx
// ended because a deadline passed (see DeadlineError), that is what
// happened, whatever the request's own error says.
//
// A request that failed for its own reason (a reset, a 503) and was not
// tried again because the deadline left no time keeps that reason.
func RequestErrorIn(ctx context.Context, err error) error {
	var de *DeadlineError
	var noAnswer *NoAnswerError
	if errors.As(err, &noAnswer) {
		return noAnswer // it says which deadline, and what hangs
	}
	if errors.As(err, &de) {
		return de // net/http returns the context's cause
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		if de, ok := DeadlineReached(ctx); ok {
			return de
		}
	}
	if strings.Contains(err.Error(), "would exceed context deadline") {
		// client-go's rate limiter gives up before the context ends
		return errors.New("the client-side rate limit (--qps, --burst) would have waited past the deadline; this member shows no API Priority and Fairness, so fedctl limits its requests: raise --qps or --deadline")
	}
	return RequestError(err)
}

// Refused says whether err is a member answering a request and refusing
// it (an API status: a 403, a 404, a 5xx that outlasted the retries), as
// opposed to the member not answering (a refused connection, TLS, a 401
// for credentials it no longer takes, a timeout, ctx's end). A refusal
// concerns that request's object or type alone; the member's other reads
// stand.
func Refused(ctx context.Context, err error) bool {
	var status apierrors.APIStatus
	return ctx.Err() == nil && errors.As(err, &status) &&
		!apierrors.IsUnauthorized(err) && !apierrors.IsTimeout(err) && !apierrors.IsServerTimeout(err)
}

// DeadlineReached says whether ctx ended because a deadline passed (see
// DeadlineError), and which.
func DeadlineReached(ctx context.Context) (*DeadlineError, bool) {
	if ctx.Err() == nil {
		return nil, false
	}
	var de *DeadlineError
	ok := errors.As(context.Cause(ctx), &de)
	return de, ok
}

// NamespaceNotFound says err is the API server refusing an object because
// its namespace does not exist (a dry run of an object whose namespace the
// same run creates first).
func NamespaceNotFound(err error) bool {
	var status apierrors.APIStatus
	if !apierrors.IsNotFound(err) || !errors.As(err, &status) {
		return false
	}
	d := status.Status().Details
	return d != nil && d.Kind == "namespaces"
}

// InMember is msg, a member's error or health message, without the
// "cluster NAME: " that this package begins them with: for a line that
// names the member already.
func InMember(name, msg string) string {
	return strings.TrimPrefix(msg, "cluster "+name+": ")
}
