"""The PromQL name extraction the metric-coverage test relies on."""

from tests.deploy.promql import exposed_names, metric_names


def test_names_from_an_expression():
    expr = (
        "histogram_quantile(0.99, sum by (le, grpc_method) (rate(grpc_server_handling_seconds_bucket"
        '{job="gamehost", grpc_type=~"unary|x"}[5m]))) > 0.05 or up{job="a"} == 0 '
        "/ clamp_min(sum(rate(gamehost_cas_conflicts_total[1m])), 1e-9)"
    )
    assert metric_names(expr) == {
        "grpc_server_handling_seconds_bucket",
        "up",
        "gamehost_cas_conflicts_total",
    }


def test_names_from_a_scrape():
    scrape = (
        "# HELP x_total x\n# TYPE x_total counter\nx_total 3.0\n"
        'h_bucket{le="0.1"} 1.0\nh_count 1.0\n'
    )
    assert exposed_names(scrape) == {"x_total", "h_bucket", "h_count"}
