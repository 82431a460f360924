// Package export writes fedctl's federated-object model in another
// system's API, so that a team can move from fedctl to a control plane
// with nothing redeployed: Karmada's plain resource templates plus
// PropagationPolicies and OverridePolicies today.
//
// It works from what fedctl renders, not from the input's own fields: the
// policies it writes make Karmada produce, for the current members, the
// member objects fedctl renders, whichever input dialect the objects came
// from. What Karmada cannot express the same way is listed as a Note.
package export
