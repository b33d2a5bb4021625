"""SiteMap: a batch's sites split over forked processes."""
