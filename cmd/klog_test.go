package cmd

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"k8s.io/klog/v2"
)

// TestRouteClientLogs: client-go's error lines (a reset mid-response logs
// one per retry) stay out of stderr below -v 6 and come with the request
// log from -v 6. Not parallel: klog is global.
func TestRouteClientLogs(t *testing.T) {
	defer routeClientLogs(&bytes.Buffer{}, 0)
	var out bytes.Buffer
	routeClientLogs(&out, 0)
	klog.ErrorS(nil, "Unexpected error when reading response body")
	klog.V(4).InfoS("a detail")
	klog.Flush()
	assert.Empty(t, out.String())

	routeClientLogs(&out, 6)
	klog.ErrorS(nil, "Unexpected error when reading response body")
	klog.V(6).InfoS("a detail")
	klog.V(7).InfoS("too detailed")
	klog.Flush()
	assert.Contains(t, out.String(), "Unexpected error when reading response body")
	assert.Contains(t, out.String(), "a detail")
	assert.NotContains(t, out.String(), "too detailed")

	// client-go logs bodies, Secrets' unredacted, from 8: capped at 7
	out.Reset()
	routeClientLogs(&out, 9)
	klog.V(7).InfoS("request headers")
	klog.V(8).InfoS("Request Body")
	klog.Flush()
	assert.Contains(t, out.String(), "request headers")
	assert.NotContains(t, out.String(), "Request Body")
}
