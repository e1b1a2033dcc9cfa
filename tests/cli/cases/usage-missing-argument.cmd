topology show
