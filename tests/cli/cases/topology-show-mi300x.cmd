topology show mi300x:nodes=2
