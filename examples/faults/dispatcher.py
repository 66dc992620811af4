#!/usr/bin/env python3
"""A job dispatcher that counts the account's running training jobs by paging ListTrainingJobs, as
the dispatcher of aws-solutions/deepracer-on-aws#87 did until AWS's rate (2 requests per second,
not adjustable) throttled it and its SDK's default retries gave up.

Run against `sagemaker-emulator --rate-limits aws` (see docs/faults.md):

    python3 examples/faults/dispatcher.py [standard|adaptive] [polls]

It reports how many jobs each poll counted and how many throttled attempts boto3 retried, or the
error that came through when the retries ran out. It uses the AWS_* settings of scripts/env.
"""
import os
import sys

import boto3
from botocore.config import Config
from botocore.exceptions import ClientError


def main() -> int:
    mode = sys.argv[1] if len(sys.argv) > 1 else "adaptive"
    polls = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    # Older boto3 releases (Debian 12's) do not read AWS_ENDPOINT_URL_SAGEMAKER themselves.
    sagemaker = boto3.client("sagemaker", endpoint_url=os.environ["AWS_ENDPOINT_URL_SAGEMAKER"],
                             config=Config(
                                 retries={"mode": mode,
                                          "total_max_attempts": 10 if mode == "adaptive" else 3}))
    retried = 0
    for poll in range(1, polls + 1):
        running, token = 0, None
        try:
            while True:
                page = sagemaker.list_training_jobs(MaxResults=4, StatusEquals="InProgress",
                                                    **({"NextToken": token} if token else {}))
                retried += page["ResponseMetadata"]["RetryAttempts"]
                running += len(page["TrainingJobSummaries"])
                token = page.get("NextToken")
                if not token:
                    break
        except ClientError as error:
            print(f"poll {poll}: gave up: {error}")
            return 1
        print(f"poll {poll}: {running} jobs InProgress")
    print(f"{mode} retries rode through {retried} throttled attempts")
    return 0


if __name__ == "__main__":
    sys.exit(main())
