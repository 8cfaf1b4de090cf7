from simulator import Config, SimulatorServer
from simulator.testing import ApiKeyStamper, SimulatorClient

with SimulatorServer(config=Config(seed=1, scenarios=("two_of_three_quorum",))) as server:
    creds = server.simulator.default_credentials()
    client = SimulatorClient(server.url, ApiKeyStamper(creds["apiPrivateKey"]), creds["organizationId"])
    print(client.query("whoami").body["username"])   # Root User
