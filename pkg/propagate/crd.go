package propagate

import (
	"context"
	"fmt"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/fedctl/fedctl/pkg/members"
)

// waitForCRDs waits until every CRD among items is Established, and says
// whether there was any.
func (s *memberSync) waitForCRDs(ctx context.Context, items []*item) bool {
	any := false
	for _, it := range items {
		if it.gvk.Kind != "CustomResourceDefinition" || it.result.Action == Failed || it.result.Action == Skipped || !it.mapped {
			continue
		}
		any = true
		if s.mode.dryRun {
			continue
		}
		for {
			crd, err := s.client.Get(ctx, it.mapping, "", it.result.Name)
			if err == nil && established(crd) {
				break
			}
			if err == nil {
				if msg := namesRejected(crd); msg != "" {
					// Waiting cannot help: the API server will not serve it.
					it.fail("", fmt.Errorf("the API server does not accept the CRD's names: %s", msg))
					break
				}
			}
			if err != nil && !members.Transient(err) {
				it.fail("", fmt.Errorf("wait for the CRD to be established: %w", members.RequestErrorIn(ctx, err)))
				break
			}
			t := time.NewTimer(200 * time.Millisecond)
			select {
			case <-ctx.Done():
				t.Stop()
				it.fail("", fmt.Errorf("wait for the CRD to be established: %w", members.RequestErrorIn(ctx, ctx.Err())))
				return any
			case <-t.C:
			}
		}
	}
	return any
}

// namesRejected is the message of a CRD's NamesAccepted condition when it
// is False (a plural or kind another CRD of the group already uses), which
// no wait ends.
func namesRejected(crd *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "NamesAccepted" && m["status"] == "False" {
			msg, _ := m["message"].(string)
			reason, _ := m["reason"].(string)
			return strings.TrimSpace(reason + ": " + msg)
		}
	}
	return ""
}

func established(crd *unstructured.Unstructured) bool {
	conds, _, _ := unstructured.NestedSlice(crd.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == "Established" && m["status"] == "True" {
			return true
		}
	}
	return false
}
