from klinkctl.cli import main

main()
