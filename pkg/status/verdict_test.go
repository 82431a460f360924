package status

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestVerdictOf: the verdict apply --wait -o json prints, from Wait's error.
func TestVerdictOf(t *testing.T) {
	t.Parallel()
	assert.Equal(t, &Verdict{Ready: true}, VerdictOf(nil))
	assert.Nil(t, VerdictOf(context.Canceled), "an interrupted wait has no verdict")

	a := NotReady{Cluster: "c1", FederatedObject: "FederatedDeployment shop/web", Object: "Deployment shop/web", Readiness: InProgress}
	b := NotReady{Cluster: "c1", FederatedObject: "FederatedConfigMap shop/cfg", Object: "ConfigMap shop/cfg", Readiness: NotFound}
	c := NotReady{Cluster: "c3", FederatedObject: "FederatedDeployment shop/web", Object: "Deployment shop/web", Readiness: Failed}
	got := VerdictOf(fmt.Errorf("wait: %w", &NotReadyError{TimedOut: true, Objects: []NotReady{a, b, c}}))
	assert.Equal(t, &Verdict{TimedOut: true, NotReady: []NotReadyInCluster{{Cluster: "c1", Objects: []NotReady{a, b}}, {Cluster: "c3", Objects: []NotReady{c}}}}, got,
		"grouped by cluster, in the error's order")

	got = VerdictOf(&NotReadyError{Failed: 1, Objects: []NotReady{c}})
	assert.Equal(t, &Verdict{Failed: true, NotReady: []NotReadyInCluster{{Cluster: "c3", Objects: []NotReady{c}}}}, got)
}
