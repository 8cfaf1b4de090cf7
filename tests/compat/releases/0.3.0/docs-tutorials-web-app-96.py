from simulator import Config, SimulatorServer

config = Config(auth_proxy=True, cors_origins=("http://localhost:3000",))
with SimulatorServer(config=config) as server:
    assert server.simulator.auth_proxy_config_id() == "5f1c0c5e-0000-4000-8000-00000000c001"
    print(server.url, server.proxy_url)
