package members

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// timeoutError is what net/http returns for its own timeouts.
type timeoutError struct{ msg string }

func (e timeoutError) Error() string { return e.msg }
func (e timeoutError) Timeout() bool { return true }

func TestRequestError(t *testing.T) {
	t.Parallel()
	conflict := apierrors.NewConflict(schema.GroupResource{Resource: "configmaps"}, "cfg", errors.New("changed"))
	for _, tt := range []struct {
		err  error
		want string
	}{
		{apierrors.NewUnauthorized("no"), "the API server rejected the credentials (401 Unauthorized); refresh the user's credentials in the kubeconfig (for a member from Cluster API, in its Cluster's kubeconfig Secret)"},
		{conflict, conflict.Error()},
		{fmt.Errorf("dial: %w", syscall.ECONNREFUSED), "the API server refused the connection; is the cluster running? (fedctl get clusters checks every member)"},
		{fmt.Errorf("get: %w", context.Canceled), "interrupted"},
		{fmt.Errorf("get: %w", context.DeadlineExceeded), "the API server did not answer one request within the request timeout (--timeout)"},
		{&url.Error{Op: "Get", URL: "https://127.0.0.1:1/api", Err: timeoutError{"context deadline exceeded (Client.Timeout exceeded while awaiting headers)"}}, "the API server did not answer one request within the request timeout (--timeout)"},
		{&url.Error{Op: "Get", URL: "https://127.0.0.1:1/api", Err: timeoutError{"net/http: TLS handshake timeout"}}, "the API server accepted the connection but did not complete the TLS handshake within 10s (client-go's TLS handshake timeout)"},
		{&net.OpError{Op: "dial", Err: errors.New("no route to host")}, "the API server cannot be reached: no route to host"},
		{&url.Error{Op: "Get", URL: "https://127.0.0.1:1/api", Err: &net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}},
			"the connection to the API server broke while it was answering (connection reset by peer); fedctl retried until its time ran out"},
		{fmt.Errorf("get: %w", io.ErrUnexpectedEOF), "the connection to the API server broke while it was answering (unexpected EOF); fedctl retried until its time ran out"},
		{&url.Error{Op: "Get", URL: "https://127.0.0.1:1/api", Err: x509.UnknownAuthorityError{}},
			"the API server's certificate is not trusted (x509: certificate signed by unknown authority); check certificate-authority-data and the server address of the context in the kubeconfig (for a member from Cluster API, in its Cluster's kubeconfig Secret)"},
		{&ConfigError{Member: "nosuch", Context: "nosuch", Source: "kubeconfig k", Err: errors.New("not found")}, `context "nosuch" in kubeconfig k: not found`},
		{errors.New("something else"), "something else"},
	} {
		assert.EqualError(t, RequestError(tt.err), tt.want)
	}
}

func TestRequestErrorInNamesTheDeadlineThatFired(t *testing.T) {
	ctx, cancel := context.WithTimeoutCause(context.Background(), time.Millisecond, &DeadlineError{Flag: "--deadline", D: 2 * time.Second})
	defer cancel()
	<-ctx.Done()
	assert.EqualError(t, RequestErrorIn(ctx, fmt.Errorf("get: %w", context.DeadlineExceeded)), "deadline reached (--deadline 2s)")
	assert.Contains(t, RequestErrorIn(ctx, fmt.Errorf("get: %w", syscall.ECONNRESET)).Error(), "the connection to the API server broke", "a request's own failure keeps its reason")

	budget, cancel2 := context.WithTimeoutCause(context.Background(), time.Millisecond, &DeadlineError{D: 10 * time.Minute})
	defer cancel2()
	<-budget.Done()
	assert.Contains(t, RequestErrorIn(budget, context.DeadlineExceeded).Error(), "the member's 10m budget ran out")

	// the request's own timeout, the member's time not over
	assert.EqualError(t, RequestErrorIn(context.Background(), fmt.Errorf("get: %w", context.DeadlineExceeded)),
		"the API server did not answer one request within the request timeout (--timeout)")
}

// TestRefused: only a member that answered and refused the request leaves
// the rest of its reads standing; one that did not answer, or no longer
// takes the credentials, is not read at all.
func TestRefused(t *testing.T) {
	gr := schema.GroupResource{Resource: "configmaps"}
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tt := range []struct {
		name string
		ctx  context.Context
		err  error
		want bool
	}{
		{"forbidden", context.Background(), apierrors.NewForbidden(gr, "x", errors.New("no")), true},
		{"unavailable after the retries", context.Background(), apierrors.NewServiceUnavailable("busy"), true},
		{"not found (a type gone)", context.Background(), apierrors.NewNotFound(gr, ""), true},
		{"unauthorized", context.Background(), apierrors.NewUnauthorized("expired"), false},
		{"server timeout", context.Background(), apierrors.NewServerTimeout(gr, "list", 1), false},
		{"timeout", context.Background(), apierrors.NewTimeoutError("slow", 1), false},
		{"connection refused", context.Background(), errors.New("dial tcp: connection refused"), false},
		{"forbidden after the run ended", ended, apierrors.NewForbidden(gr, "x", errors.New("no")), false},
	} {
		assert.Equal(t, tt.want, Refused(tt.ctx, tt.err), tt.name)
	}
}
