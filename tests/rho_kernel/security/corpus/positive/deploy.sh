#!/bin/sh
set -eu
curl -fsS -H "Authorization: Bearer ⟦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⟧" https://api.github.com/user
curl -fsS -H 'Authorization: Basic ⟦YWRtaW46czNjcjN0UGFzcw==⟧' https://example.com/health
curl https://api.stripe.com/v1/charges -u ⟦sk_test_0G9Cryn687neLfjVHq8xiM07⟧:
mysql --user=root --password=⟦Tr0ub4dor⟧ app < schema.sql
PGPASSWORD=⟦c0rrectH0rse⟧ psql -h db -U app app
aws configure set aws_session_key ⟦ASIA6RHXO55ZBKA52ZT7⟧
