# "domain: r0003" where "su001/r0003" is meant gets a hint.
topology show inputs/override-short-domain.yaml
